import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { x402Client } from '@x402/fetch'
import { privateKeyToAccount } from 'viem/accounts'
import { PAYMENT_NETWORK } from '../core/payment-terms.ts'
import type { ClassFigures, LoadClass, LoadPlan, LoadReport } from './load-plan.ts'
import { apiStatementsBetween, formatWaits, waitBuckets, waitsBetween } from './live-service.ts'

/**
 * The load bench's load process (`bench/load.bench.ts` starts it): it drives the service from
 * outside, as its users would, so the service's event loop and engine carry only the service.
 * Usage: node --import tsx bench/load-driver.ts <plan.json>; prints one LoadReport line as JSON.
 */

type Options = Parameters<typeof autocannon>[0]
type Result = Awaited<ReturnType<typeof autocannon>>

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan

/** Per x402 class: the authorizations signed for its next run, one per call. */
const signatures = new Map<LoadClass, string[]>()

/** Sign a fresh authorization per call of the class's next run, `calls` of them (they are valid for a short window). */
async function signFor(c: LoadClass, base: string, calls = c.x402!.calls): Promise<void> {
  const { privateKey, asset } = c.x402!
  const client = x402Client.fromConfig({
    schemes: [{ network: PAYMENT_NETWORK, client: new ExactEvmScheme(privateKeyToAccount(privateKey)) }],
    spendControls: { allowedAssets: [{ network: PAYMENT_NETWORK, asset }] },
  })
  const res = await fetch(base + c.paths![0]!)
  const header = res.headers.get('payment-required')
  if (res.status !== 402 || !header) throw new Error(`${c.paths![0]} without a key answered ${res.status}, not 402 with PAYMENT-REQUIRED`)
  const required = decodePaymentRequiredHeader(header)
  const signed: string[] = []
  for (let i = 0; i < calls; i++) signed.push(encodePaymentSignatureHeader(await client.createPaymentPayload(required)))
  signatures.set(c, signed)
}

/** How the driver calls a class: `once` asks each of its paths once (its first asks). */
function optionsOf(c: LoadClass, base: string, once = false): Options {
  let turn = 0
  const headers = { ...(c.headers ?? {}) }
  const common = { url: base, duration: plan.seconds, connections: c.connections, headers }
  if (c.x402) {
    const spend = () => signatures.get(c)?.pop() ?? 'exhausted'
    const { duration: _, ...paid } = common
    // A refused payment says why in its body: the first of each status goes to stderr.
    const told = new Set<number>()
    const tell = (status: number, body: string) => {
      if (status < 300 || told.has(status)) return
      told.add(status)
      console.error(`${c.name}: first ${status}: ${body.slice(0, 400)}`)
    }
    return { ...paid, amount: signatures.get(c)?.length ?? 0, requests: [{ path: c.paths![0], setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'payment-signature': spend() } }), onResponse: tell }] } as Options
  }
  if (c.follow) {
    const { path, cursorField } = c.follow
    return {
      ...common,
      requests: [
        {
          setupRequest: (req, context) => {
            const since = (context as { since?: string }).since
            return { ...req, path: since ? `${path}&since=${encodeURIComponent(since)}` : path }
          },
          onResponse: (status, body, context) => {
            if (status !== 200) return
            const next = (JSON.parse(body) as { data: Record<string, unknown> }).data[cursorField]
            if (typeof next === 'string') (context as { since?: string }).since = next
          },
        },
      ],
    } as Options
  }
  if (c.mcp) {
    const { tool, args } = c.mcp
    return {
      ...common,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({
            ...req,
            path: '/mcp',
            body: JSON.stringify({ jsonrpc: '2.0', id: ++turn, method: 'tools/call', params: { name: tool, arguments: args[turn % args.length] } }),
          }),
        },
      ],
    } as Options
  }
  const paths = c.paths ?? ['/']
  // Each key once, across all connections: one turn shared by them.
  if (once) return { ...common, requests: [{ setupRequest: (req) => ({ ...req, path: paths[turn++ % paths.length] }) }] } as Options
  // Built once each (no setupRequest): the driver's cost per request is then that of one fixed
  // request, whatever the number of paths (each connection calls them in turn).
  return { ...common, requests: paths.map((path) => ({ path })) } as Options
}

const figures = (name: string, r: Result): ClassFigures => ({
  name,
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  p999: r.latency.p99_9,
  requests: r.requests.total,
  non2xx: r.non2xx,
  statuses: Object.fromEntries(Object.entries(r.statusCodeStats as Record<string, { count: number }>).filter(([s]) => !s.startsWith('2')).map(([s, v]) => [s, v.count])),
  errors: r.errors + r.timeouts,
})

/** Drive `options` for the plan's warm-up seconds and forget the figures (a server's JIT warms up first). */
async function warm(options: Options): Promise<void> {
  if (plan.warmSeconds > 0) await autocannon({ ...options, duration: plan.warmSeconds })
}

// The baseline is driven as the first class (/token): the same paths in turn, headers and
// connections, so the driver does the same work per request for both and the ratio is the
// servers' own. One fixed request is also printed: what the driver reaches with the least work.
await warm(optionsOf(plan.classes[0]!, plan.bareBase))
const bare = figures('bare', await autocannon(optionsOf(plan.classes[0]!, plan.bareBase)))
const bareFixed = figures('bare, one fixed request', await autocannon({ url: plan.bareBase, duration: plan.seconds, connections: plan.classes[0]!.connections }))
const alone: ClassFigures[] = []
const metrics = async () => (await fetch(`${plan.base}/metrics`)).text()
/** The facilitator's own time per paid call between two /metrics texts, by step. */
const facilitatorBetween = (before: string, after: string) =>
  formatWaits(waitsBetween(waitBuckets(before, 'svc_x402_facilitator_duration_seconds', 'step'), waitBuckets(after, 'svc_x402_facilitator_duration_seconds', 'step')), 'calls', 'none')
let facilitatorAlone = 'none'
const first: Array<ClassFigures | null> = []
for (const c of plan.classes) {
  // Each key asked once first (a caller's first ask is a miss: what it costs is reported apart),
  // then the class alone for the bench's seconds (callers asking again, as pollers and paid
  // consumers do).
  const keyed = (c.paths?.length ?? 0) > 1 && !c.x402
  if (c.x402) {
    // Warmed up as the others are, but by calls rather than seconds (each call spends an
    // authorization): `warmCalls` paid calls first, their figures dropped, then the class's run.
    first.push(null)
    if (plan.warmSeconds > 0 && c.x402.warmCalls > 0) {
      await signFor(c, plan.base, c.x402.warmCalls)
      await autocannon(optionsOf(c, plan.base))
    }
    await signFor(c, plan.base)
    const before = await metrics()
    alone.push(figures(c.name, await autocannon(optionsOf(c, plan.base))))
    facilitatorAlone = facilitatorBetween(before, await metrics())
    continue
  }
  if (keyed) {
    const once = { ...optionsOf(c, plan.base, true), amount: c.paths!.length } as Options & { duration?: number }
    delete once.duration
    first.push(figures(c.name, await autocannon(once)))
  } else first.push(null)
  await warm(optionsOf(c, plan.base))
  alone.push(figures(c.name, await autocannon(optionsOf(c, plan.base))))
}
for (const c of plan.classes) if (c.x402) await signFor(c, plan.base)
const beforeMix = await metrics()
const mix = (await Promise.all(plan.classes.map((c) => autocannon(optionsOf(c, plan.base))))).map((r, i) => figures(plan.classes[i]!.name, r))
const afterMix = await metrics()
const mixEngine = apiStatementsBetween(beforeMix, afterMix)
const facilitator = { alone: facilitatorAlone, mix: facilitatorBetween(beforeMix, afterMix) }
console.log(JSON.stringify({ bare, bareFixed, first, alone, mix, mixEngine, facilitator } satisfies LoadReport))
