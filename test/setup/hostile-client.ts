import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { timedGet } from './raw-http.ts'

const CLIENT = join(import.meta.dirname, 'slow-body-client.mjs')

export interface ClientAnswer {
  /** The HTTP status read before the close; 0 when the connection closed (or was reset) without one. */
  status: number
  code: string | null
  retryAfter: string | null
  closedAfterMs: number
}

/**
 * Run slow-body-client.mjs in a process of its own: `count` connections to 127.0.0.1:port,
 * each a POST to `path` declaring `declared` bytes and sending `sent` of them (nested JSON
 * arrays when `nested`), then quiet. Resolves once every connection is closed.
 */
export function runHostileClient(
  port: number,
  o: { count: number; path: string; declared: number; sent: number; nested?: boolean },
): { connected: Promise<void>; answers: Promise<ClientAnswer[]> } {
  const args = [CLIENT, String(port), String(o.count), o.path, String(o.declared), String(o.sent), o.nested ? 'nested' : 'plain']
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  let onConnected = () => {}
  const connected = new Promise<void>((resolve) => (onConnected = resolve))
  child.stdout.on('data', (d) => {
    out += d
    if (out.startsWith('connected\n')) onConnected()
  })
  const answers = new Promise<ClientAnswer[]>((resolve, reject) => {
    child.on('exit', (code) => {
      onConnected()
      if (code === 0) resolve(JSON.parse(out.slice(out.indexOf('\n') + 1)) as ClientAnswer[])
      else reject(new Error(`the hostile client exited with ${code}`))
    })
  })
  return { connected, answers }
}

/** Run the hostile client and poll /health from the moment its connections are open until they are all closed. */
export async function attackWatchingHealth(base: string, port: number, o: Parameters<typeof runHostileClient>[1]) {
  const client = runHostileClient(port, o)
  await client.connected
  const [answers, health] = await Promise.all([client.answers, healthWhile(base, client.answers)])
  return { answers, health }
}

/**
 * GET /health every 25 ms until `done` settles, and at least `minSamples` times: each answer's
 * status and milliseconds. An attack over in a quarter second gives one or two samples, whose
 * median is one sample's noise; the floor keeps the median a median.
 */
export async function healthWhile(base: string, done: Promise<unknown>, minSamples = 5): Promise<{ statuses: number[]; times: number[] }> {
  let finished = false
  void done.then(
    () => (finished = true),
    () => (finished = true),
  )
  const statuses: number[] = []
  const times: number[] = []
  while (!finished || times.length < minSamples) {
    const { status, ms } = await timedGet(`${base}/health`)
    statuses.push(status)
    times.push(Math.round(ms))
    await new Promise((r) => setTimeout(r, 25))
  }
  return { statuses, times }
}

/**
 * The median: a machine shared with other work can stall any one answer; a server whose event
 * loop is held (JSON.parse of a deep body, a buffered flood) stalls them all.
 */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Infinity
}

/** Statuses counted: {status: how many}. */
export function tally(answers: Array<{ status: number }>): Record<number, number> {
  const out: Record<number, number> = {}
  for (const a of answers) out[a.status] = (out[a.status] ?? 0) + 1
  return out
}

/** The median /health time with nothing else going on: the yardstick of a machine that may be shared. */
export async function healthBaseline(base: string, samples = 10): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    times.push((await timedGet(`${base}/health`)).ms)
    await new Promise((r) => setTimeout(r, 25))
  }
  return median(times)
}

/**
 * The most the median /health may take during an attack: 100 ms, or three times the quiet
 * median when the machine itself is slower than that (a test machine shared with other work).
 */
export const healthBound = (baselineMs: number) => Math.max(100, 3 * baselineMs)
