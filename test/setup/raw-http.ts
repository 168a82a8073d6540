import { connect, type Socket } from 'node:net'

/** What came back on a raw socket before it closed: the status, headers and body, and when it closed. */
export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
  /** Milliseconds from opening the socket until it closed. */
  closedAfterMs: number
}

/** Parse an HTTP/1.1 answer read off a socket (status 0 when nothing came). */
export function parseAnswer(bytes: Buffer, closedAfterMs: number): RawAnswer {
  const text = bytes.toString('latin1')
  const [head = '', ...rest] = text.split('\r\n\r\n')
  const [line = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(line)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n'), closedAfterMs }
}

/**
 * Open a socket to 127.0.0.1:port and write `parts` (the request, or the part of it a slow
 * client sends before going quiet); resolve with what came back once the server closes it.
 */
export function sendAndWait(port: number, ...parts: Buffer[]): { socket: Socket; answer: Promise<RawAnswer> } {
  const started = Date.now()
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  const answer = new Promise<RawAnswer>((resolve) => {
    socket.on('data', (d) => chunks.push(d))
    // A server that stops reading and closes may reset the connection: what came before still counts.
    socket.on('error', () => {})
    socket.on('close', () => resolve(parseAnswer(Buffer.concat(chunks), Date.now() - started)))
  })
  for (const p of parts) socket.write(p)
  return { socket, answer }
}

/** The head of a POST with a declared body length. */
export const postHead = (path: string, contentLength: number, headers: Record<string, string> = {}) =>
  Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${contentLength}\r\n` +
      Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') +
      '\r\n',
  )

/** Milliseconds a GET takes to answer, and its status. */
export async function timedGet(url: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now()
  const res = await fetch(url)
  await res.arrayBuffer()
  return { status: res.status, ms: performance.now() - t0 }
}

/** The error code of a JSON error body, if it is one. */
export function errorCodeOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code
  } catch {
    return undefined
  }
}
