import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { catalog } from '../../api/catalog/index.ts'
import { renderEndpointTable } from '../../api/catalog/endpoint-table.ts'
import { runSvc } from '../setup/svc-process.ts'

/**
 * The README and docs/ against the code they describe. The operator's reference tables: a
 * command `svc help` lists or a variable the configuration reads that docs/operators.md does not
 * name is an operator left guessing. Every page: a command, script or variable it names that the
 * code does not have is a reader sent astray. The endpoint table is the catalog's own. A figure
 * a page quotes from a benchmark names the bench and the words it prints the figure with, so a
 * bench that stops printing it fails here.
 */

const root = join(import.meta.dirname, '../..')
const operators = readFileSync(join(root, 'docs/operators.md'), 'utf8')
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
const text = (page: string) => readFileSync(join(root, page), 'utf8')

/** The lines of the operators' page under `heading`, up to the next heading. */
function section(heading: string): string {
  const start = operators.indexOf(`\n${heading}\n`)
  expect(start, heading).toBeGreaterThan(-1)
  const rest = operators.slice(start + heading.length + 2)
  return rest.slice(0, rest.search(/\n#{2,3} /) + 1 || undefined)
}

/** Every text file of the code (what a named variable must appear in), read once. */
const codeText = (() => {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(rel)
      else if (/\.(ts|sh|js|mjs|cjs|yaml|sql|c)$/.test(entry.name)) out.push(readFileSync(join(root, rel), 'utf8'))
    }
  }
  for (const dir of ['api', 'products', 'bin', 'core', 'infra', 'mcp', 'pipelines', 'sql', 'bench', 'test/setup', '.ci']) walk(dir)
  return out.join('\n')
})()

describe('README.md as a door', () => {
  it('is short, gives the two commands and sends each reader to a page that exists', () => {
    const readme = text('README.md')
    expect(readme.split('\n').length).toBeLessThan(150)
    expect(readme).toContain('npm ci && npm start')
    expect(readme).toContain('npm ci && npm test')
    const links = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!)
    expect(links.length).toBeGreaterThan(4)
    for (const l of links) expect(pages, l).toContain(l)
  })

  it('docs/endpoints.md is the catalog as `npm run docs:endpoints` writes it', () => {
    expect(text('docs/endpoints.md')).toBe(renderEndpointTable(catalog))
  })
})

describe('every page names only scripts, commands and variables the code has', () => {
  const scripts = Object.keys((JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts)
  const commands = [...text('bin/svc.ts').matchAll(/^ {4}case '([a-z-]+)':/gm)].map((m) => m[1]!)
  for (const page of pages) {
    it(page, () => {
      const t = text(page)
      const named = {
        scripts: [...t.matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => m[1]!),
        commands: [...t.matchAll(/`(?:npx |npm run )?svc (?:-- )?([a-z][a-z-]*)/g)].map((m) => m[1]!),
        variables: [...t.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)].map((m) => m[1]!),
      }
      expect(named.scripts.filter((s) => !scripts.includes(s)), 'npm scripts').toEqual([])
      expect(named.commands.filter((c) => !commands.includes(c) && c !== 'help'), 'svc commands').toEqual([])
      expect(named.variables.filter((v) => !codeText.includes(v)), 'variables').toEqual([])
    })
  }
})

describe('docs/operators.md', () => {
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

describe('every page cites benches that exist, for figures they still print', () => {
  const benchSource = readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.ts')).map((f) => text(`bench/${f}`)).join('\n')
  const benchNames = [...text('bench/run.ts').matchAll(/^ {2}\['([a-z-]+)',/gm)].map((m) => m[1]!)

  it('bench/run.ts lists its benches', () => expect(benchNames).toEqual(expect.arrayContaining(['decode', 'load', 'door'])))

  for (const page of pages) {
    it(page, () => {
      const t = text(page)
      const named = [...t.matchAll(/npm run bench -- ([a-z][a-z-]*)/g)].map((m) => m[1]!)
      expect(named.filter((n) => !benchNames.includes(n)), 'benches').toEqual([])
      // "`npm run bench -- load` prints `served … s after start`": each piece around … is in the bench's code.
      const quoted = [...t.matchAll(/`npm run bench -- [a-z-]+` prints `([^`]+)`/g)].map((m) => m[1]!)
      expect(quoted.filter((q) => q.split('…').some((piece) => !benchSource.includes(piece.trim()))), 'figures no bench prints').toEqual([])
    })
  }
})
