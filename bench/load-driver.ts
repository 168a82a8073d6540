import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import type { ClassFigures, LoadClass, LoadPlan, LoadReport } from './load-plan.ts'

/**
 * The load bench's load process (`bench/load.bench.ts` starts it): it drives the service from
 * outside, as its users would, so the service's event loop and engine carry only the service.
 * Usage: node --import tsx bench/load-driver.ts <plan.json>; prints one LoadReport line as JSON.
 */

type Options = Parameters<typeof autocannon>[0]
type Result = Awaited<ReturnType<typeof autocannon>>

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan

/** How the driver calls a class: `once` asks each of its paths once (its first asks). */
function optionsOf(c: LoadClass, base: string, once = false): Options {
  let turn = 0
  const headers = { ...(c.headers ?? {}) }
  const common = { url: base, duration: plan.seconds, connections: c.connections, headers }
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
const first: Array<ClassFigures | null> = []
for (const c of plan.classes) {
  // Each key asked once first (a caller's first ask is a miss: what it costs is reported apart),
  // then the class alone for the bench's seconds (callers asking again, as pollers and paid
  // consumers do).
  const keyed = (c.paths?.length ?? 0) > 1
  if (keyed) {
    const once = { ...optionsOf(c, plan.base, true), amount: c.paths!.length } as Options & { duration?: number }
    delete once.duration
    first.push(figures(c.name, await autocannon(once)))
  } else first.push(null)
  await warm(optionsOf(c, plan.base))
  alone.push(figures(c.name, await autocannon(optionsOf(c, plan.base))))
}
const mix = (await Promise.all(plan.classes.map((c) => autocannon(optionsOf(c, plan.base))))).map((r, i) => figures(plan.classes[i]!.name, r))
console.log(JSON.stringify({ bare, bareFixed, first, alone, mix } satisfies LoadReport))
