import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'queries')
const loaded = new Map<string, string>()

/**
 * A named query from `sql/queries/<name>.sql`. The serving queries live as SQL files so the
 * data team can read and run the exact SQL an endpoint answers from.
 */
export function namedQuery(name: string): string {
  let q = loaded.get(name)
  if (q === undefined) {
    q = readFileSync(join(DIR, `${name}.sql`), 'utf8')
    loaded.set(name, q)
  }
  return q
}
