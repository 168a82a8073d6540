import { z } from 'zod'
import { PLAN_NAMES, type PlanName } from '../../core/domain/plans.ts'
import { runReadOnlySql } from '../../sql/read-only.ts'
import { defineEndpoint } from '../catalog/types.ts'
import { ApiError } from '../errors.ts'

const KeyView = z.object({ prefix: z.string(), plan: z.string(), created_at: z.string(), revoked_at: z.string().nullable() })

export const createKeyEndpoint = defineEndpoint({
  method: 'POST',
  path: '/admin/keys',
  summary: 'Issue a subscription key',
  description: 'Issues a key (svc_live_ + 32 base62 characters) for a plan. The key is in this answer only: it is stored hashed.',
  tags: ['admin'],
  body: z.object({ plan: z.enum(PLAN_NAMES as [PlanName, ...PlanName[]], { error: `expected one of ${PLAN_NAMES.join(', ')}` }) }),
  response: z.object({ key: z.string(), prefix: z.string(), plan: z.string() }),
  access: { kind: 'admin' },
  async handler({ body, deps }) {
    const { key, record } = await deps.keys.create(body.plan)
    return { key, prefix: record.prefix, plan: record.plan }
  },
})

export const listKeysEndpoint = defineEndpoint({
  method: 'GET',
  path: '/admin/keys',
  summary: 'List subscription keys',
  description: 'Every key by prefix and plan; the keys themselves are not stored and cannot be listed.',
  tags: ['admin'],
  response: z.object({ keys: z.array(KeyView) }),
  access: { kind: 'admin' },
  async handler({ deps }) {
    return { keys: (await deps.keys.list()).map((k) => ({ prefix: k.prefix, plan: k.plan, created_at: k.createdAt, revoked_at: k.revokedAt })) }
  },
})

export const revokeKeyEndpoint = defineEndpoint({
  method: 'DELETE',
  path: '/admin/keys/{prefix}',
  summary: 'Revoke a subscription key',
  description: 'Revokes the live keys with this prefix (svc_live_ plus 4 characters, as issued). Takes effect within 5 seconds in every API process.',
  tags: ['admin'],
  params: z.object({ prefix: z.string().regex(/^svc_live_[0-9A-Za-z]{4}$/, 'expected svc_live_ followed by 4 letters or digits') }),
  response: z.object({ revoked: z.number().int() }),
  access: { kind: 'admin' },
  async handler({ params, deps }) {
    const revoked = await deps.keys.revoke(params.prefix)
    if (revoked === 0) throw new ApiError('not_found', `No live key with prefix ${params.prefix}.`)
    return { revoked }
  },
})

export const adminSqlEndpoint = defineEndpoint({
  method: 'POST',
  path: '/admin/sql',
  summary: 'Run one read-only query',
  description: "The data team's door: one read-only SQL statement with time (30 s), memory (2 GiB) and row (100,000) limits; JSON rows out.",
  tags: ['admin'],
  body: z.object({ query: z.string().min(1).max(20_000) }),
  response: z.object({ rows: z.array(z.record(z.string(), z.unknown())) }),
  access: { kind: 'admin' },
  async handler({ body, deps }) {
    try {
      return { rows: await runReadOnlySql(deps.ch, body.query) }
    } catch (err) {
      throw new ApiError('invalid_parameter', `The query failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, { parameter: 'query' })
    }
  },
})
