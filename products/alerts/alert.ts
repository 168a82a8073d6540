import { z } from 'zod'

/**
 * One alert on `alerts.events`. Any producer publishes these; one delivery worker fans each
 * out to the webhooks. `target` (a key hash) limits an alert to one key's webhook (test events);
 * without it every webhook receives it. The webhook body is `{ id, kind, created_at, data }`.
 */
export const AlertKind = z.enum(['test', 'proven_deployer_launch', 'measured_caller_call', 'structure_flip'])
export type AlertKind = z.infer<typeof AlertKind>

export const AlertEvent = z.object({
  id: z.string().min(1).max(200),
  kind: AlertKind,
  created_at: z.iso.datetime(),
  data: z.record(z.string(), z.unknown()),
  target: z.string().regex(/^[0-9a-f]{64}$/).optional(),
})
export type AlertEvent = z.infer<typeof AlertEvent>

/** The JSON body a webhook receives (the target stays internal). */
export function alertBody(e: AlertEvent): string {
  return JSON.stringify({ id: e.id, kind: e.kind, created_at: e.created_at, data: e.data })
}
