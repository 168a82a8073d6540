import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { ApiError } from '../core/endpoint/errors.ts'

/** Seconds a client refused by the connection cap is told to wait. */
export const CONNECTION_RETRY_AFTER_SECONDS = 5

/** How long a refused connection may stay open to read its 503 before it is destroyed (ms). */
const REFUSED_LINGER_MS = 2_000

export interface ConnectionCapOptions {
  /** Open connections in total. */
  total: number
  /** Open connections per client address; null: not counted (behind a trusted proxy). */
  perAddress: number | null
  /** Told when a connection is refused (metrics, a log line). */
  onRefused?: (reason: 'total' | 'address') => void
}

export interface ConnectionCap {
  /** Connections open now, in total and per address (for tests and metrics). */
  open(): { total: number; addresses: number }
}

/** The 503 a refused connection reads, in our error model, as raw HTTP/1.1. */
function refusal(reason: 'total' | 'address'): string {
  const err = new ApiError(
    'dependency_unavailable',
    reason === 'total' ? 'The service has too many open connections; retry shortly.' : 'Too many open connections from your address; close some or retry shortly.',
    { limit: reason === 'total' ? 'connections' : 'connections_per_address' },
  )
  const body = JSON.stringify(err.body())
  return [
    'HTTP/1.1 503 Service Unavailable',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Retry-After: ${CONNECTION_RETRY_AFTER_SECONDS}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n')
}

/**
 * Cap the sockets an HTTP server holds, in total and per client address. Counted when the socket
 * is accepted, not per request: a client that sends a byte of a body and goes quiet holds a file
 * descriptor as surely as a busy one. A socket over the cap never reaches the HTTP parser: the
 * server's 'connection' event is intercepted (its listeners are Node's parser and Fastify's
 * bookkeeping), the socket is answered 503 with Retry-After and closed.
 */
export function capConnections(server: Server, opts: ConnectionCapOptions): ConnectionCap {
  let total = 0
  const byAddress = new Map<string, number>()

  const refuse = (socket: Socket, reason: 'total' | 'address') => {
    opts.onRefused?.(reason)
    socket.on('error', () => {})
    // Nothing the client sends is read (the socket stays paused: no CPU spent on a body it may
    // be pushing); it has a moment to read the 503, then the descriptor is let go.
    socket.end(refusal(reason))
    setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref()
  }

  const admit = (socket: Socket): boolean => {
    const address = socket.remoteAddress ?? 'unknown'
    if (total >= opts.total) {
      refuse(socket, 'total')
      return false
    }
    const mine = byAddress.get(address) ?? 0
    if (opts.perAddress !== null && mine >= opts.perAddress) {
      refuse(socket, 'address')
      return false
    }
    total++
    byAddress.set(address, mine + 1)
    socket.once('close', () => {
      total--
      const left = (byAddress.get(address) ?? 1) - 1
      if (left > 0) byAddress.set(address, left)
      else byAddress.delete(address)
    })
    return true
  }

  // Intercepting emit is the one way to keep a socket from Node's own 'connection' listener,
  // which attaches the HTTP parser before any listener of ours would run.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'connection' && !admit(args[0] as Socket)) return true
    return emit(event, ...args)
  }) as Server['emit']

  return { open: () => ({ total, addresses: byAddress.size }) }
}
