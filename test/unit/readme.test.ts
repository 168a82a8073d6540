import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSvc } from '../setup/svc-process.ts'

/**
 * The README's reference tables against the code they describe: a command `svc help` lists or a
 * variable the configuration reads that the README does not name is an operator left guessing.
 */

const root = join(import.meta.dirname, '../..')
const readme = readFileSync(join(root, 'README.md'), 'utf8')

/** The lines of the README section under `heading`, up to the next heading. */
function section(heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`)
  expect(start, heading).toBeGreaterThan(-1)
  const rest = readme.slice(start + heading.length + 2)
  return rest.slice(0, rest.search(/\n#{2,3} /) + 1 || undefined)
}

describe('README.md', () => {
  it('the svc CLI table has a row for every command `svc help` lists, each pipeline by name', async () => {
    const { stdout } = await runSvc(['help'], {}, 30_000)
    const commands = stdout
      .split('\n')
      .filter((l) => /^ {2}[a-z]/.test(l))
      .map((l) => {
        const [word, next] = l.trim().split(/\s+/)
        return word === 'pipeline' ? `${word} ${next}` : word!
      })
    expect(commands).toEqual(expect.arrayContaining(['start', 'api', 'pipeline alerts', 'pipeline social']))
    const rows = section('### The `svc` CLI').split('\n').filter((l) => l.startsWith('| `svc '))
    for (const c of commands) expect(rows.some((r) => r.startsWith(`| \`svc ${c}`)), `svc ${c}`).toBe(true)
  })

  it('the configuration table names every variable core/config.ts reads', () => {
    const variables = [...readFileSync(join(root, 'core/config.ts'), 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]!)
    expect(variables).toContain('SERVING_CACHE_ENTRIES')
    const table = section('## Configuration')
    for (const v of variables) {
      // A chain-5042 variable is documented by its chain-4663 row, "(same for 5042)".
      const twin = v.replace(/^CHAIN_5042_/, 'CHAIN_4663_')
      const documented = table.includes(`\`${v}\``) || (twin !== v && new RegExp(`\`${twin}\`[^|]*\\(same for 5042\\)`).test(table))
      expect(documented, v).toBe(true)
    }
  })
})
