import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalog } from '../../api/catalog/index.ts'
import { buildOpenApi } from '../../api/openapi.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The served /openapi.json (built from the catalog as the route builds it) as two linters that
 * client generators' users run see it: Redocly's `recommended` rules and Spectral's `oas`
 * ruleset, each as its own process. Both must find nothing: no error and no warning.
 */
const run = promisify(execFile)
const bin = (name: string) => fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url))
// No telemetry, no update check against the registry: the lint runs offline.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }
const dir = tempDir('svc-openapi-lint-')
const doc = join(dir.path, 'openapi.json')

beforeAll(() => writeFileSync(doc, JSON.stringify(buildOpenApi(catalog), null, 2)))
afterAll(() => dir.cleanup())

/** Both linters exit non-zero on errors; their report is what is asserted, so keep it. */
async function lint(cmd: string, args: string[]): Promise<string> {
  try {
    return (await run(bin(cmd), args, { env, maxBuffer: 64 << 20 })).stdout
  } catch (err) {
    const e = err as { stdout?: string }
    if (typeof e.stdout === 'string' && e.stdout.length > 0) return e.stdout
    throw err
  }
}

describe('/openapi.json under real linters', () => {
  it('Redocly `recommended`: 0 errors, 0 warnings', async () => {
    const out = await lint('redocly', ['lint', '--extends', 'recommended', '--format', 'json', doc])
    const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }> }
    const problems = report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
    expect(problems).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
  })

  it('Spectral `spectral:oas`: 0 errors, 0 warnings', async () => {
    const ruleset = join(dir.path, 'spectral.yaml')
    writeFileSync(ruleset, 'extends: ["spectral:oas"]\n')
    const report = join(dir.path, 'spectral.json')
    await lint('spectral', ['lint', '--ruleset', ruleset, '--format', 'json', '--output', report, doc])
    // Severity 0 is an error, 1 a warning (2 and 3 are info and hints).
    const results = JSON.parse(readFileSync(report, 'utf8')) as Array<{ code: string; severity: number; path: string[]; message: string }>
    expect(results.filter((r) => r.severity <= 1).map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([])
  })
})
