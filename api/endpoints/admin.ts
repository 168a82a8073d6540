import { LARGE_BODY_LIMIT_BYTES } from '../../core/endpoint/body-limits.ts'
import { z } from 'zod'
import { isDependencyUnavailable } from '../../core/dependency.ts'
import { PLAN_NAMES, type PlanName } from '../../core/plans.ts'
import { runReadOnlySql } from '../../sql/read-only.ts'
import { Address } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { AUDITED_VIEWS } from '../../core/records/verify-report.ts'

const KeyView = z.object({ prefix: z.string(), plan: z.string(), created_at: z.string(), revoked_at: z.string().nullable() })

export const createKeyEndpoint = defineEndpoint<Uses<'keys'>>()({
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

export const listKeysEndpoint = defineEndpoint<Uses<'keys'>>()({
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

export const revokeKeyEndpoint = defineEndpoint<Uses<'keys'>>()({
  method: 'DELETE',
  path: '/admin/keys/{prefix}',
  summary: 'Revoke a subscription key',
  description: 'Revokes the live keys with this prefix (svc_live_ plus 4 characters, as issued). Takes effect within 5 seconds in every API process.',
  tags: ['admin'],
  params: z.object({ prefix: z.string().regex(/^svc_live_[0-9A-Za-z]{4}$/, 'expected svc_live_ followed by 4 letters or digits') }),
  response: z.object({ revoked: z.number().int() }),
  access: { kind: 'admin' },
  errors: ['not_found'],
  async handler({ params, deps }) {
    const revoked = await deps.keys.revoke(params.prefix)
    if (revoked === 0) throw new ApiError('not_found', `No live key with prefix ${params.prefix}.`)
    return { revoked }
  },
})

export const adminSqlEndpoint = defineEndpoint<Uses<'ch'>>()({
  method: 'POST',
  path: '/admin/sql',
  summary: 'Run one read-only query',
  description: "The data team's door: one read-only SQL statement with time (30 s), memory (2 GiB) and row (100,000) limits; JSON rows out.",
  tags: ['admin'],
  body: z.object({ query: z.string().min(1).max(20_000) }),
  bodyLimit: LARGE_BODY_LIMIT_BYTES,
  response: z.object({ rows: z.array(z.record(z.string(), z.unknown())) }),
  access: { kind: 'admin' },
  async handler({ body, deps }) {
    try {
      return { rows: await runReadOnlySql(deps.ch, body.query) }
    } catch (err) {
      // A ClickHouse that is down is not the query's fault: the app answers it 503, retryable.
      if (isDependencyUnavailable(err)) throw err
      throw new ApiError('invalid_parameter', `The query failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, { parameter: 'query' })
    }
  },
})

/** At most this much test USDC per faucet call: 1,000,000 USDC in 6-decimal units. */
const FAUCET_MAX_ATOMIC = 1_000_000_000_000n

export const faucetEndpoint = defineEndpoint<Uses<'faucet'>>()({
  method: 'POST',
  path: '/admin/faucet',
  summary: 'Mint test USDC (local payments chain only)',
  description:
    'Mints test USDC on the local payments chain that `svc start` runs when neither X402_FACILITATOR_URL nor X402_NETWORK_RPC_URL is set: `amount` in 6-decimal units (1 USDC = 1000000), at most 1,000,000 USDC a call. Answers 404 on any other payment setup: there is nothing to mint on a real network.',
  tags: ['admin'],
  body: z.object({
    address: Address,
    amount: z.string().regex(/^[1-9]\d{0,12}$/, 'expected a positive integer of 6-decimal units, e.g. "1000000" for 1 USDC'),
  }),
  response: z.object({ address: z.string(), amount: z.string(), balance: z.string(), transaction: z.string(), asset: z.string(), network: z.string(), rpc_url: z.string() }),
  access: { kind: 'admin' },
  errors: ['not_found'],
  async handler({ body, deps }) {
    const faucet = deps.faucet
    if (!faucet) throw new ApiError('not_found', 'No faucet here: it exists only on the local payments chain that `svc start` runs when neither X402_FACILITATOR_URL nor X402_NETWORK_RPC_URL is set.')
    const atomic = BigInt(body.amount)
    if (atomic > FAUCET_MAX_ATOMIC) throw new ApiError('invalid_parameter', 'amount is more than 1,000,000 USDC (1000000000000 units).', { parameter: 'amount' })
    const { transaction, balance } = await faucet.mint(body.address, atomic)
    return { address: body.address, amount: body.amount, balance: balance.toString(), transaction, asset: faucet.asset, network: faucet.network, rpc_url: faucet.rpcUrl }
  },
})

const ViewReportView = z.object({
  view: z.string(),
  chain: z.number().int().nullable(),
  against: z.string(),
  checked: z.number().int(),
  drifted: z.number().int(),
  first: z.array(z.object({ key: z.string(), kept: z.string(), fresh: z.string() })),
  repaired: z.number().int().optional(),
  repair_note: z.string().optional(),
  seconds: z.number(),
})

export const adminVerifyEndpoint = defineEndpoint<Uses<'verify' | 'audit'>>()({
  method: 'POST',
  path: '/admin/verify',
  summary: 'Audit kept views against raw rows',
  description:
    'What `svc verify` prints, from the running service: every kept view (FIFO state and sells, holder balances, token and deployer state, chain totals and blocks, mention windows, caller stats, Solana FIFO, the 5042 activity tables) recomputed from its raw rows for all keys or a `sample` fraction, compared exactly. Per view: keys checked, keys drifted, the first drifted keys with both values. `repair` rebuilds the drifted keys from raw rows and checks again.',
  tags: ['admin'],
  body: z.object({
    sample: z.number().gt(0).max(1).optional(),
    seed: z.number().int().nonnegative().optional(),
    views: z.array(z.enum(AUDITED_VIEWS, { error: `expected views among ${AUDITED_VIEWS.join(', ')}` })).min(1).optional(),
    first: z.number().int().min(0).max(100).optional(),
    repair: z.boolean().optional(),
  }),
  response: z.object({ sample: z.number(), seed: z.number().int(), drifted: z.number().int(), seconds: z.number(), views: z.array(ViewReportView) }),
  access: { kind: 'admin' },
  async handler({ body, deps }) {
    const report = await deps.verify(body)
    deps.audit?.record(report)
    return report
  },
})
