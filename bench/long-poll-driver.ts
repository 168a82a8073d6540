import { setMaxListeners } from 'node:events'
import { readFileSync } from 'node:fs'
import http from 'node:http'

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
const headers = { 'x-svc-key': plan.key }
const end = Date.now() + plan.seconds * 1000
const stop = new AbortController()
// Every request in flight listens to the one stop signal.
setMaxListeners(0, stop.signal)
const report: LongPollReport = { held: [], plain: [], requests: 0, non2xx: 0, statuses: {}, errors: 0 }

type Page = { data: { launches: Array<{ launch_block: number }>; next_since: string | null } }

/**
 * The pollers' client: node:http with a keep-alive agent, as many connections as requests in
 * flight (every poller holds its own while it waits). fetch (undici) costs the client several
 * times more CPU per answer: with four client processes on the service's two cores, a burst of a
 * thousand answers spread over the clients' own queue (p99 about 600 ms after the wake, against
 * about 300 ms with node:http; the service wrote its last answer about 100 ms after it in both).
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })

/** A page and when its answer arrived (its headers; the small body comes with them), before the client parses it. */
function page(since: string | null, wait: number): Promise<{ page: Page; at: number } | null> {
  report.requests++
  return new Promise((resolve) => {
    const req = http.get(`${plan.base}/feed/new?limit=20${since ? `&since=${encodeURIComponent(since)}` : ''}${wait ? `&wait=${wait}` : ''}`, { headers, agent, signal: stop.signal }, (res) => {
      const at = Date.now()
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString()
        if (res.statusCode !== 200) {
          report.non2xx++
          const seen = (report.statuses[res.statusCode!] ??= { n: 0, body: body.slice(0, 300) })
          seen.n++
          return resolve(null)
        }
        resolve({ page: JSON.parse(body) as Page, at })
      })
      res.on('error', failed)
    })
    req.on('error', failed)
    function failed() {
      if (!stop.signal.aborted) report.errors++
      resolve(null)
    }
  })
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
