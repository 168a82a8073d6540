import { setMaxListeners } from 'node:events'
import { readFileSync } from 'node:fs'

/**
 * The long-poll bench's pollers (`bench/long-poll.bench.ts` starts them in their own process):
 * `pollers` callers each follow `/feed/new`'s next_since with `wait=30`, and one plain poller asks
 * the same page once a second without waiting (the baseline; in one driver process of several),
 * for `seconds`. Every answer that
 * carries launches is recorded with the time it arrived (its response, before the client parses
 * it) and the launches' blocks.
 * Usage: node --import tsx bench/long-poll-driver.ts <plan.json>; prints one JSON line.
 */
export interface LongPollPlan {
  base: string
  key: string
  pollers: number
  seconds: number
  /** Whether this process also runs the plain poller (one of the driver processes does). */
  plain: boolean
}

export interface Answer {
  /** Unix ms the answer arrived. */
  at: number
  blocks: number[]
}

export interface LongPollReport {
  held: Answer[]
  plain: Answer[]
  requests: number
  non2xx: number
  /** Non-2xx answers by status, with the first body of each. */
  statuses: Record<string, { n: number; body: string }>
  errors: number
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LongPollPlan
// fetch's default pool opens as many connections to one origin as there are requests in flight:
// every poller holds its own for as long as it waits.
const headers = { 'x-svc-key': plan.key }
const end = Date.now() + plan.seconds * 1000
const stop = new AbortController()
// Every request in flight listens to the one stop signal.
setMaxListeners(0, stop.signal)
const report: LongPollReport = { held: [], plain: [], requests: 0, non2xx: 0, statuses: {}, errors: 0 }

type Page = { data: { launches: Array<{ launch_block: number }>; next_since: string | null } }

/** A page and when its answer arrived (its headers; the small body comes with them), before the client parses it. */
async function page(since: string | null, wait: number): Promise<{ page: Page; at: number } | null> {
  report.requests++
  try {
    const res = await fetch(`${plan.base}/feed/new?limit=20${since ? `&since=${encodeURIComponent(since)}` : ''}${wait ? `&wait=${wait}` : ''}`, { headers, signal: stop.signal })
    const at = Date.now()
    if (res.status !== 200) {
      report.non2xx++
      const body = await res.text()
      const seen = (report.statuses[res.status] ??= { n: 0, body: body.slice(0, 300) })
      seen.n++
      return null
    }
    return { page: (await res.json()) as Page, at }
  } catch (err) {
    if (!stop.signal.aborted) report.errors++
    return null
  }
}

async function follow(since: string | null, wait: number, into: Answer[]): Promise<void> {
  while (Date.now() < end) {
    const started = Date.now()
    const answer = await page(since, wait)
    const p = answer?.page
    // Stamped on arrival: a thousand pollers in four processes on this machine's two cores parse
    // their answers one after another, and that queue is the client's, not the service's.
    if (p && p.data.launches.length > 0) into.push({ at: answer.at, blocks: p.data.launches.map((l) => l.launch_block) })
    if (p?.data.next_since) since = p.data.next_since
    // The plain poller asks once a second; a failed long poll backs off the same.
    if (!wait || !p) await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))))
  }
}

// The head: the cursor of the newest launch served now.
const head = (await page(null, 0))?.page.data.next_since ?? null
const done = Promise.all([...(plan.plain ? [follow(head, 0, report.plain)] : []), ...Array.from({ length: plan.pollers }, () => follow(head, 30, report.held))])
setTimeout(() => stop.abort(), plan.seconds * 1000).unref()
await done
console.log(JSON.stringify(report))
process.exit(0)
