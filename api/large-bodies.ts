import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_BODY_LIMIT_BYTES } from '../core/endpoint/body-limits.ts'
import { ApiError } from '../core/endpoint/errors.ts'

/** Seconds a caller refused a large-body slot is told to wait. */
const RETRY_AFTER_SECONDS = 5

/**
 * Slots for requests whose body is large (more than a JSON route reads, up to 8 MiB buffered
 * each): at most `total` at once, `perAddress` per client address. A small body on the same
 * route (an MCP tool call, a short query) takes none. A request takes its slot before its body is read and
 * gives it back when its answer is finished or its connection closes, so what bodies in flight
 * can cost the process is bounded by the slots, however many clients trickle bodies in. Over
 * either: 503 with Retry-After, and the connection is closed rather than the body drained.
 */
export function largeBodySlots(opts: { total: number; perAddress: number }) {
  let inUse = 0
  const byAddress = new Map<string, number>()
  return async function takeSlot(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Only a large body spends a slot: one declared above a JSON route's limit, or one sent
    // chunked (its length unknown until it has been read).
    const declared = req.headers['content-length']
    const large = declared !== undefined ? Number(declared) > JSON_BODY_LIMIT_BYTES : req.headers['transfer-encoding'] !== undefined
    if (!large) return
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
