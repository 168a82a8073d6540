import { readFileSync } from 'node:fs'

const loaded = new Map<string, string>()

/**
 * The text of a `.sql` file beside the code that runs it, read once:
 * `sqlFile(new URL('./token-state-sources.sql', import.meta.url))`. Serving and refresh queries
 * live as SQL files in their product's folder so the data team can read and run the exact SQL a
 * product answers from.
 */
export function sqlFile(file: URL): string {
  let q = loaded.get(file.href)
  if (q === undefined) {
    q = readFileSync(file, 'utf8')
    loaded.set(file.href, q)
  }
  return q
}
