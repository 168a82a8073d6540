import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requirePythonToolsBin } from '../setup/services.ts'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The contract, fuzzed: schemathesis (pinned in infra/python/requirements.txt) generates
 * requests from /openapi.json of a running `svc start` and runs every check, once without
 * credentials and once with a subscription key. Expected: no server error, no schema violation, no undocumented status, no valid
 * request refused, no invalid one accepted, 405 with Allow for undeclared methods, and every
 * error in the `{"error":{"code","message"}}` body. What is legitimately answered beside
 * schemathesis' defaults is in test/fuzz/schemathesis.toml, with why.
 *
 * A failure names the operation and the check, with the request to reproduce it.
 */

const ADMIN = 'contract-fuzz-admin-token-01'
const CONFIG = join(import.meta.dirname, '../fuzz/schemathesis.toml')
/** Generated cases per operation and phase: bounded so that both runs stay within a few minutes. */
const MAX_EXAMPLES = 4
const SEED = 20261123
const dir = tempDir('svc-fuzz-')
let svc: SvcServer

beforeAll(async () => {
  console.log(`[fuzz] starting svc ${new Date().toISOString()}`)
  svc = await startSvcServer(['start'], await freePort(), {
    DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', KAFKA_BROKERS: '', REDIS_URL: '', X402_LOCAL_CHAIN: 'off',
    // A short history: the fuzzing exercises the contract, not the backfill (which would take the CPU).
    SIMULATOR_BACKFILL_BLOCKS: '300',
    // A generated `wait` on a feed with nothing after its cursor is held that long: at most 1 s
    // here, or the fuzzer's cases would each hold up to its 30 s request timeout.
    LONG_POLL_HOLD_SECONDS: '1',
  }, 120_000)
})

afterAll(async () => {
  await svc?.stop()
  dir.cleanup()
})

interface Interaction {
  request: { method: string; uri: string; body?: { $base64?: string } }
  response: { status_code: number; headers: Record<string, string[]>; content?: { $base64?: string } } | null
}
interface CheckResult {
  name: string
  status: string
  failure_info?: { failure: { code?: string; title: string; message: string; operation: string } }
}
interface Finished {
  status: string
  recorder: { label: string; checks: Record<string, CheckResult[]>; interactions: Record<string, Interaction> }
}

interface RunResult {
  exitCode: number | null
  output: string
  scenarios: Finished[]
}

/** `st run` over the service's /openapi.json with extra headers; the NDJSON event report parsed. */
function schemathesis(headers: string[], label: string, extra: string[] = []): Promise<RunResult> {
  const reportDir = join(dir.path, `st-${label}`)
  const args = [
    '--config-file', CONFIG,
    'run', `${svc.base}/openapi.json`,
    // The checks are chosen in the config file (every one but max_response_time), not with
    // --checks: a check named on the command line overrides the file's per-operation settings.
    // The stateful phase follows links it infers between operations; here it only inferred one
    // from the x402 catalog's URL templates (/token/{address} taken literally), so it is left out.
    '--phases', 'examples,coverage,fuzzing',
    '--max-examples', String(MAX_EXAMPLES),
    '--seed', String(SEED),
    // One worker: with two threads, hypothesis parses lambda sources concurrently and CPython 3.11's
    // ast module can raise a spurious "AST constructor recursion depth mismatch" (seen in CI).
    '--workers', '1',
    '--request-timeout', '30',
    '--generation-database', 'none',
    '--no-color',
    '--report', 'ndjson', '--report-dir', reportDir,
    ...headers.flatMap((h) => ['--header', h]),
    ...extra,
  ]
  console.log(`[fuzz] st run ${label} ${new Date().toISOString()}`)
  return new Promise((resolve, reject) => {
    const child = spawn(join(requirePythonToolsBin(), 'st'), args, { cwd: dir.path, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SCHEMATHESIS_HOOKS: '' } })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (exitCode) => {
      if (!existsSync(reportDir)) return reject(new Error(`st exited with ${exitCode} before writing a report:\n${output}`))
      const files = readdirSync(reportDir).filter((f) => f.endsWith('.ndjson'))
      const scenarios = files.flatMap((f) =>
        readFileSync(join(reportDir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .flatMap((e) => (e.ScenarioFinished ? [e.ScenarioFinished as Finished] : [])),
      )
      resolve({ exitCode, output, scenarios })
    })
  })
}

const decode = (c: { $base64?: string } | undefined) => (c?.$base64 ? Buffer.from(c.$base64, 'base64').toString('utf8') : '')

/** Every failed check as one line: operation, check, schemathesis' code and message, the request. */
function failures(run: RunResult): string[] {
  const out = new Set<string>()
  for (const s of run.scenarios) {
    for (const [caseId, checks] of Object.entries(s.recorder.checks ?? {})) {
      for (const c of checks) {
        if (c.status !== 'failure' || !c.failure_info) continue
        const f = c.failure_info.failure
        const i = s.recorder.interactions?.[caseId]
        const req = i ? `${i.request.method} ${i.request.uri}${i.request.body ? ` body=${decode(i.request.body).slice(0, 200)}` : ''}` : '(no request)'
        const res = i?.response ? `→ ${i.response.status_code} ${decode(i.response.content).slice(0, 300)}` : ''
        out.add(`${f.operation} — ${c.name} (${f.code ?? ''} ${f.title}): ${f.message.split('\n')[0]}\n    ${req}\n    ${res}`)
      }
    }
  }
  return [...out]
}

/** Every answer of status ≥ 400 whose body is not the error model (the MCP transport's 2xx are JSON-RPC). */
function errorBodiesOutOfShape(run: RunResult): string[] {
  const out: string[] = []
  for (const s of run.scenarios) {
    for (const i of Object.values(s.recorder.interactions ?? {})) {
      const r = i.response
      if (!r || r.status_code < 400 || i.request.method === 'HEAD') continue
      const text = decode(r.content)
      let ok = false
      try {
        const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
        ok = typeof body.error?.code === 'string' && typeof body.error.message === 'string'
      } catch {
        ok = false
      }
      if (!ok) out.push(`${s.recorder.label}: ${i.request.method} ${i.request.uri} → ${r.status_code} ${text.slice(0, 200)}`)
    }
  }
  return out
}

function statuses(run: RunResult): Map<number, number> {
  const m = new Map<number, number>()
  for (const s of run.scenarios) for (const i of Object.values(s.recorder.interactions ?? {})) if (i.response) m.set(i.response.status_code, (m.get(i.response.status_code) ?? 0) + 1)
  return m
}

function expectClean(run: RunResult): void {
  // The run happened: requests were answered, across operations.
  expect(run.scenarios.length, run.output.slice(-3000)).toBeGreaterThan(30)
  const found = failures(run)
  expect(found, `schemathesis failures (operation — check):\n${found.join('\n')}`).toEqual([])
  const shapes = errorBodiesOutOfShape(run)
  expect(shapes, `error answers not in {"error":{"code","message"}}:\n${shapes.join('\n')}`).toEqual([])
  const byStatus = statuses(run)
  const serverErrors = [...byStatus].filter(([s]) => s >= 500)
  expect(serverErrors, `server errors by status: ${JSON.stringify(serverErrors)}`).toEqual([])
  expect(run.exitCode, run.output.slice(-3000)).toBe(0)
}

describe('schemathesis over /openapi.json', () => {
  it('without credentials: every check passes', { timeout: 600_000 }, async () => {
    const run = await schemathesis([], 'anonymous')
    expectClean(run)
    // Undeclared methods were tried and answered 405.
    expect(statuses(run).get(405) ?? 0).toBeGreaterThan(0)
  })

  it('with a subscription key: every check passes', { timeout: 600_000 }, async () => {
    const res = await fetch(`${svc.base}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'signal_feed' }),
    })
    expect(res.status).toBe(200)
    const { key } = (await res.json()) as { key: string }
    // Free endpoints answer the same with or without a key: the anonymous run covered them.
    const run = await schemathesis([`x-svc-key: ${key}`], 'key', ['--exclude-by', '/x-access == "free"'])
    expectClean(run)
    // The key opened the key endpoints: some answered 200.
    const watchlist = run.scenarios.filter((s) => s.recorder.label === 'GET /watchlist')
    expect(watchlist.some((s) => Object.values(s.recorder.interactions ?? {}).some((i) => i.response?.status_code === 200))).toBe(true)
    expect((await fetch(`${svc.base}/health`)).status, svc.output()).toBe(200)
  })
})
