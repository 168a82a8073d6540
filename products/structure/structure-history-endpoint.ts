import { z } from 'zod'
import { structureSnapshots } from './scan-results.ts'
import { keyWatches } from './watchers.ts'
import { Address, BlockNumber, Limit } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { SnapshotView, snapshotView } from './snapshot-view.ts'

export const structureHistoryEndpoint = defineEndpoint<Uses<'ch' | 'scans'>>()({
  method: 'GET',
  path: '/structure/{token}/history',
  summary: 'Holder-snapshot history',
  description:
    "The token's archived holder snapshots, newest first: daily for a watched token (the automatic scan, STRUCTURE_DAILY_SCAN_SECONDS of chain time apart), plus those of POST /structure/{token} scans. Each: holder count, top holders, the day's diff summary and the structure verdict. Page with `before_block` = `next_before_block`. Needs a key whose plan has `history`.",
  tags: ['structure'],
  params: z.object({ token: Address }),
  query: z.object({
    limit: Limit(365, 30),
    before_block: z.coerce.number().int('expected a block number').min(1, 'expected a block number').optional().meta({ description: 'only snapshots measured through a block below this one' }),
  }),
  response: z.object({
    data: z.object({
      token: z.string(),
      watched: z.boolean().meta({ description: "whether the token is on this key's watchlist (daily scans)" }),
      snapshots: z.array(SnapshotView),
      next_before_block: BlockNumber.nullable().meta({ description: 'the before_block of the next page; null on the last' }),
    }),
    chain_id: z.number().int(),
  }),
  access: { kind: 'key', feature: 'history' },
  async handler({ params, query, deps, grant }) {
    const chainId = deps.scans.chainId
    const [rows, watched] = await Promise.all([
      structureSnapshots(deps.ch, chainId, params.token, { limit: query.limit + 1, beforeBlock: query.before_block }),
      grant.keyHash ? keyWatches(deps.ch, grant.keyHash, params.token) : Promise.resolve(false),
    ])
    const page = rows.slice(0, query.limit)
    return {
      data: { token: params.token, watched, snapshots: page.map(snapshotView), next_before_block: rows.length > query.limit ? page.at(-1)!.toBlock : null },
      chain_id: chainId,
    }
  },
})
