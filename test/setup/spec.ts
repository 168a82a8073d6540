import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The contract, from ../shared beside the repository (CI places it there). */
export const SPEC_PATH = join(import.meta.dirname, '../../../shared/spec/service-spec.md')

export interface SpecRow {
  method: string
  path: string
  /** Price column of the paid table, when there is one. */
  price?: string
}

/** Every `| METHOD | /path | ... |` row of the spec's endpoint tables (GET / POST rows split). */
export function specEndpoints(): SpecRow[] {
  if (!existsSync(SPEC_PATH)) throw new Error(`the contract is missing at ${SPEC_PATH}: check out ../shared beside the repository`)
  const rows: SpecRow[] = []
  for (const line of readFileSync(SPEC_PATH, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    const [, method, path] = cells
    if (!method || !path || !/^(GET|POST|DELETE)( \/ (GET|POST|DELETE))*$/.test(method) || !path.startsWith('/')) continue
    const priceCell = cells[4]
    const price = priceCell && /^\d+\.\d+/.test(priceCell) ? /^\d+\.\d+/.exec(priceCell)![0] : undefined
    for (const m of method.split(' / ')) rows.push({ method: m, path, ...(price ? { price } : {}) })
  }
  return rows
}
