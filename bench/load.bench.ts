import { spawn } from 'node:child_process'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, startSvcServer } from '../test/setup/svc-process.ts'
import type { ClassFigures, LoadClass, LoadPlan, LoadReport } from './load-plan.ts'
import type { BenchResult } from './result.ts'
import { runDriverProcess } from './driver-process.ts'
import { engineWaits, waitLive } from './live-service.ts'

const SECONDS = Number(process.env.LOAD_SECONDS ?? 8)
/** x402-paid calls per run (alone, and in the mix): each spends its own signed authorization. */
const X402_CALLS = Number(process.env.LOAD_X402_CALLS ?? 300)
/**
 * x402-paid calls spent first, unmeasured, before its run alone (the other classes' warm-up is
 * LOAD_WARM_SECONDS): the first paid calls after a start wait on the facilitator's worker and the
 * payments chain warming up (stop 67: the first four took 160-300 ms, the rest 20-60 ms).
 */
const X402_WARM_CALLS = Number(process.env.LOAD_X402_WARM_CALLS ?? 100)
const WARM_SECONDS = Number(process.env.LOAD_WARM_SECONDS ?? 3)
const ADMIN = 'bench-admin-token-0123456789abcdef'

/**
 * The load bench (`npm run bench -- load`), measured as users see the service: `svc start` on
 * the default world as its own process (the 24 h backfill of both chains, then live), driven by
 * a separate load process (bench/load-driver.ts, autocannon), each class of callers alone and
 * then all at once, against a bare node:http server answering a /token answer's bytes in its own
 * process in the same run, driven as the /token class is (so the driver's own cost per request is
 * the same on both sides). Each run alone, the bare server's too, is driven LOAD_WARM_SECONDS (3)
 * before its measured LOAD_SECONDS (8): the figures are steady state, not JIT warm-up. The
 * service idle, its batches and its start: the pipeline bench.
 */
export async function benchLoad(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-load-'))
  const port = await freePort()
  const started = Date.now()
  // Every class comes from this host: its connection cap per address (64) is raised to the total
  // cap, as if each class came from its own addresses (the mix holds 68 connections).
  const svc = await startSvcServer(['start'], port, { DATA_DIR: join(dir, 'data'), SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', HTTP_MAX_CONNECTIONS_PER_IP: '4000' }, 600_000)
  let bare: ReturnType<typeof spawn> | undefined
  try {
    const base = svc.base
    const live = await waitLive(base)
    const servedSeconds = Math.round((Date.now() - started) / 1000)
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const key = ((await (await fetch(`${base}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan: 'desk' }) })).json()) as { key: string }).key
    const keyed = { 'x-svc-key': key }
    const feed = (await (await fetch(`${base}/feed/new?limit=200`, { headers: keyed })).json()) as { data: { launches: Array<{ token: string }> } }
    const tokens = feed.data.launches.map((l) => l.token)
    if (tokens.length < 20) throw new Error(`only ${tokens.length} launches served`)
    const sql = (await (await fetch(`${base}/admin/sql`, { method: 'POST', headers: admin, body: JSON.stringify({ query: 'SELECT DISTINCT wallet FROM leaderboard_claims LIMIT 100' }) })).json()) as { rows: Array<{ wallet: string }> }
    const wallets = sql.rows.map((r) => r.wallet)
    // The x402 payer: a fresh account funded by the local payments chain's faucet.
    const payerKey = generatePrivateKey()
    const funded = await fetch(`${base}/admin/faucet`, { method: 'POST', headers: admin, body: JSON.stringify({ address: privateKeyToAccount(payerKey).address, amount: '100000000' }) })
    if (funded.status !== 200) throw new Error(`the faucet answered ${funded.status}: ${await funded.text()}`)
    const asset = ((await (await fetch(`${base}/.well-known/x402`)).json()) as { asset: { address: string } }).asset.address
    const tokenBytes = Buffer.from(await (await fetch(`${base}/token/${tokens[0]}`, { headers: keyed })).arrayBuffer())

    const bodyFile = join(dir, 'token.json')
    writeFileSync(bodyFile, tokenBytes)
    const barePort = await freePort()
    bare = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'bare-server.ts'), bodyFile, String(barePort)], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>((resolve) => bare!.stdout!.once('data', () => resolve()))

    const classes: LoadClass[] = [
      { name: '/token', what: `GET /token/{address} over ${tokens.length} tokens, key`, connections: 16, headers: keyed, paths: tokens.map((t) => `/token/${t}`) },
      { name: '/verdict', what: 'GET /verdict/{token}, key', connections: 8, headers: keyed, paths: tokens.map((t) => `/verdict/${t}`) },
      { name: '/structure', what: 'GET /structure/{token}, key', connections: 4, headers: keyed, paths: tokens.map((t) => `/structure/${t}`) },
      { name: '/wallet-receipt', what: `GET /wallet-receipt/{address} over ${wallets.length} roster wallets, key`, connections: 8, headers: keyed, paths: wallets.map((w) => `/wallet-receipt/${w}`) },
      { name: '/feed/new', what: 'GET /feed/new?limit=20 following next_since, key', connections: 8, headers: keyed, follow: { path: '/feed/new?limit=20', cursorField: 'next_since' } },
      { name: '/signals/calls', what: 'GET /signals/calls?limit=20 following next_since, key', connections: 4, headers: keyed, follow: { path: '/signals/calls?limit=20', cursorField: 'next_since' } },
      { name: '/agent/features', what: 'GET /agent/features?token=, key', connections: 4, headers: keyed, paths: tokens.map((t) => `/agent/features?token=${t}`) },
      { name: '/stats', what: 'GET /stats, free', connections: 4, paths: ['/stats'] },
      { name: 'MCP tools/call', what: 'POST /mcp tools/call svc_token, key', connections: 4, headers: keyed, mcp: { tool: 'svc_token', args: tokens.map((t) => ({ address: t })) } },
      {
        name: 'x402-paid', what: `GET /token/{address} paid per call over x402, no key (${X402_CALLS} calls a run after ${X402_WARM_CALLS} unmeasured, each its own signed authorization, verified and settled on the local payments chain)`,
        connections: 4, paths: [`/token/${tokens[0]}`], x402: { privateKey: payerKey, asset, calls: X402_CALLS, warmCalls: X402_WARM_CALLS },
      },
    ]
    const plan: LoadPlan = { base, bareBase: `http://127.0.0.1:${barePort}`, seconds: SECONDS, warmSeconds: WARM_SECONDS, classes }
    const planFile = join(dir, 'plan.json')
    writeFileSync(planFile, JSON.stringify(plan))
    const report = await runDriver(planFile)
    const waits = engineWaits(await (await fetch(`${base}/metrics`)).text())
    const fmt = (f: ClassFigures) => `${f.rps} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, p99.9 ${f.p999} ms, ${f.requests} requests, ${f.non2xx} non-2xx${f.non2xx ? ` (${Object.entries(f.statuses).map(([s, n]) => `${n} × ${s}`).join(', ')})` : ''}, ${f.errors} errors`
    return [
      ...classes.map((c, i) => {
        const alone = report.alone[i]!
        const mix = report.mix[i]!
        return {
          name: `load: ${c.name} alone (${c.what}), ${c.connections} connections, from a separate process`,
          baseline: `a bare node:http server answering the same /token bytes, driven as the ${classes[0]!.name} class (same paths in turn, headers, ${classes[0]!.connections} connections), same run`,
          ours: { value: alone.rps, unit: 'req/s' },
          base: { value: report.bare.rps, unit: 'req/s' },
          ratio: alone.rps / report.bare.rps,
          notes: `${i === 0 ? `the service live at blocks ${JSON.stringify(live)}, ${servedSeconds} s after start | what a query waited before the engine ran it, over the whole run (svc_engine_wait_seconds): ${waits} | the API's engine statements while all classes ran at once, by path: ${report.mixEngine} | ` : ''}${report.first[i] ? `first ask of each of its ${report.first[i]!.requests} keys: p50 ${report.first[i]!.p50} ms, p99 ${report.first[i]!.p99} ms | ` : ''}alone: ${fmt(alone)} | all ${classes.length} classes at once: ${fmt(mix)}${c.x402 ? ` | the facilitator's own time a call (svc_x402_facilitator_duration_seconds), alone: ${report.facilitator.alone}; all at once: ${report.facilitator.mix}` : ''} | bare: ${fmt(report.bare)} | bare, one fixed request (what the driver alone reaches): ${fmt(report.bareFixed)}`,
        }
      }),
    ]
  } finally {
    bare?.kill('SIGKILL')
    await svc.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}


const runDriver = (planFile: string) => runDriverProcess<LoadReport>('load-driver.ts', planFile)
