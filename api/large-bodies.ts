import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from './errors.ts'

/** Seconds a caller refused a large-body slot is told to wait. */
const RETRY_AFTER_SECONDS = 5

/**
 * Slots for requests whose body may be large (up to 8 MiB buffered each): at most `total` at
 * once, `perAddress` per client address. A request takes its slot before its body is read and
 * gives it back when its answer is finished or its connection closes, so what bodies in flight
 * can cost the process is bounded by the slots, however many clients trickle bodies in. Over
 * either: 503 with Retry-After, and the connection is closed rather than the body drained.
 */
export function largeBodySlots(opts: { total: number; perAddress: number }) {
  let inUse = 0
  const byAddress = new Map<string, number>()
  return async function takeSlot(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Only a request that carries a body spends a slot (GET /clickhouse, a bodiless POST do not).
    const length = Number(req.headers['content-length'] ?? 0)
    if (!(length > 0) && req.headers['transfer-encoding'] === undefined) return
    const address = req.ip
    const mine = byAddress.get(address) ?? 0
    if (inUse >= opts.total || mine >= opts.perAddress) {
      reply.header('connection', 'close')
      const perAddress = inUse < opts.total
      throw new ApiError(
        'dependency_unavailable',
        perAddress ? `At most ${opts.perAddress} large request bodies are read at once per address; retry shortly.` : 'The service is reading as many large request bodies as it takes at once; retry shortly.',
        { limit: perAddress ? 'large_bodies_per_address' : 'large_bodies' },
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      )
    }
    inUse++
    byAddress.set(address, mine + 1)
    reply.raw.once('close', () => {
      inUse--
      const left = (byAddress.get(address) ?? 1) - 1
      if (left > 0) byAddress.set(address, left)
      else byAddress.delete(address)
    })
  }
}
