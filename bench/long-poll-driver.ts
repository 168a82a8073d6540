import { readFileSync } from 'node:fs'
import net from 'node:net'

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
const report: LongPollReport = { held: [], plain: [], requests: 0, non2xx: 0, statuses: {}, errors: 0 }

type Page = { data: { launches: Array<{ launch_block: number }>; next_since: string | null } }

/**
 * The pollers' client: one keep-alive connection per poller, its requests written and its answers
 * read by hand (HTTP/1.1, bodies sized by Content-Length, as the service sends them). The drivers
 * share the service's two cores, and a thousand answers in one burst queue behind the clients' own
 * work: with fetch (undici) the burst's p99 was about 600 ms after the wake, with node:http about
 * 300-450 ms, while the service wrote its last answer 100-200 ms after the commit. An answer is
 * stamped at the first bytes of its response, before anything parses it.
 */
class Connection {
  private socket: net.Socket | null = null
  private buffered: Buffer = Buffer.alloc(0)
  private waiting: { resolve: (r: Raw | null) => void; at: number | null } | null = null
  constructor(private readonly host: string, private readonly port: number) {}

  get(path: string): Promise<Raw | null> {
    const socket = (this.socket ??= this.open())
    return new Promise((resolve) => {
      this.waiting = { resolve, at: null }
      socket.write(`GET ${path} HTTP/1.1\r\nhost: ${this.host}:${this.port}\r\nx-svc-key: ${plan.key}\r\n\r\n`)
    })
  }

  close(): void {
    this.socket?.destroy()
  }

  private open(): net.Socket {
    const socket = net.connect(this.port, this.host)
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      if (this.waiting && this.waiting.at === null) this.waiting.at = Date.now()
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk
      this.take()
    })
    const lost = () => {
      if (this.socket === socket) this.socket = null
      this.buffered = Buffer.alloc(0)
      this.settle(null)
    }
    socket.on('error', lost)
    socket.on('close', lost)
    return socket
  }

  /** A whole response in the buffer: its status and body to the request waiting for it. */
  private take(): void {
    const headEnd = this.buffered.indexOf('\r\n\r\n')
    if (headEnd < 0) return
    const head = this.buffered.subarray(0, headEnd).toString('latin1')
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)
    if (!length) {
      // Not a response this client reads (chunked): counted as an error, the connection dropped.
      report.errors++
      this.socket?.destroy()
      return
    }
    const end = headEnd + 4 + Number(length[1])
    if (this.buffered.length < end) return
    const body = this.buffered.subarray(headEnd + 4, end).toString()
    this.buffered = this.buffered.subarray(end)
    this.settle({ status: Number(head.slice(9, 12)), body, at: this.waiting?.at ?? Date.now() })
  }

  private settle(r: Raw | null): void {
    const w = this.waiting
    this.waiting = null
    w?.resolve(r)
  }
}

interface Raw {
  status: number
  body: string
  at: number
}

const target = new URL(plan.base)
const connections: Connection[] = []

/** A page and when its answer arrived (its first bytes), before the client parses it. */
async function page(conn: Connection, since: string | null, wait: number): Promise<{ page: Page; at: number } | null> {
  report.requests++
  const raw = await conn.get(`/feed/new?limit=20${since ? `&since=${encodeURIComponent(since)}` : ''}${wait ? `&wait=${wait}` : ''}`)
  if (!raw) {
    if (Date.now() < end) report.errors++
    return null
  }
  if (raw.status !== 200) {
    report.non2xx++
    const seen = (report.statuses[raw.status] ??= { n: 0, body: raw.body.slice(0, 300) })
    seen.n++
    return null
  }
  return { page: JSON.parse(raw.body) as Page, at: raw.at }
}

async function follow(since: string | null, wait: number, into: Answer[]): Promise<void> {
  const conn = new Connection(target.hostname, Number(target.port))
  connections.push(conn)
  while (Date.now() < end) {
    const started = Date.now()
    const answer = await page(conn, since, wait)
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
const first = new Connection(target.hostname, Number(target.port))
const head = (await page(first, null, 0))?.page.data.next_since ?? null
first.close()
const done = Promise.all([...(plan.plain ? [follow(head, 0, report.plain)] : []), ...Array.from({ length: plan.pollers }, () => follow(head, 30, report.held))])
setTimeout(() => {
  for (const c of connections) c.close()
}, plan.seconds * 1000).unref()
await done
console.log(JSON.stringify(report))
process.exit(0)
