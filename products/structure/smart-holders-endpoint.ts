import { z } from 'zod'
import { refuseWrappedEther } from './known-token.ts'
import { holderWindow, tokenPools } from './holder-balances.ts'
import { keyWatches } from './watchers.ts'
import { shareOf } from './holder-labels.ts'
import { smartHolderRecords } from './wallet-records.ts'
import { Address, Measured, Wei } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'

const CHAIN = 4663
/** The largest holders judged per answer (a token's holders beyond them are not read). */
export const SMART_HOLDERS_JUDGED = 1000
const PRICE = '0.05'

/** The token's largest holders at `block` that have a good measured record, each with that record. */
async function smartHolders(ch: Parameters<typeof holderWindow>[0], token: string, block: number) {
  const pools = (await tokenPools(ch, CHAIN, token, block)).map((p) => p.pool)
  const w = await holderWindow(ch, CHAIN, token, { fromBlock: block, toBlock: block }, { pools, top: SMART_HOLDERS_JUDGED, diffLimit: 1 })
  const records = await smartHolderRecords(ch, CHAIN, w.top.map((h) => h.wallet))
  return {
    judged: w.top.length,
    holders: w.holders,
    smart: w.top
      .filter((h) => records.has(h.wallet))
      .map((h) => ({ address: h.wallet, balance_wei: h.balance.toString(), share: shareOf(h.balance, w.supply), basis: records.get(h.wallet)!.basis, record: records.get(h.wallet)!.record })),
  }
}

export const smartHoldersEndpoint = defineEndpoint<Uses<'ch' | 'cache' | 'watermarks' | 'quoteTokens'>>()({
  method: 'GET',
  path: '/structure/{token}/smart-holders',
  summary: 'Smart holders',
  description:
    `The token's holders whose measured record is good, each with the record it was judged on: the linked wallet of a caller graded A or B, or a positive FIFO realized result with a win rate of at least 0.5 over at least 5 sells. The ${SMART_HOLDERS_JUDGED} largest holders at the last served block are judged. ` +
    `Price ${PRICE}; free with a subscription key for a token on that key's watchlist. A key that does not watch the token answers 402: watch it, or call without the key and pay per call.`,
  tags: ['structure'],
  params: z.object({ token: Address }),
  response: z.object({
    data: z.object({
      token: z.string(),
      smart_holders: z.array(
        z.object({
          address: z.string(),
          balance_wei: Wei,
          share: z.string().meta({ description: 'balance / supply, 9 decimals' }),
          basis: z.enum(['caller_grade', 'fifo_realized']).meta({ description: 'which rule made the holder smart' }),
          record: z.record(z.string(), z.unknown()).meta({ description: 'the measured record it was judged on, as its source states it' }),
        }),
      ),
      holders: z.number().int().meta({ description: 'holders of the token at the measured block' }),
      judged: z.number().int().meta({ description: 'the largest holders whose records were read' }),
    }),
    ...Measured,
  }),
  access: { kind: 'paid', price: PRICE, note: 'free for watched tokens with a subscription key' },
  async handler({ params, deps, grant }) {
    refuseWrappedEther(deps.quoteTokens, params.token)
    if (grant.via === 'key' && !(grant.keyHash && (await keyWatches(deps.ch, grant.keyHash, params.token)))) {
      throw new ApiError('payment_required', `Free with a subscription key for a token on its watchlist; this key does not watch ${params.token}. Watch it, or call without the key and pay ${PRICE} USD per call.`, {
        price_usd: PRICE,
        free_with: 'a subscription key watching the token',
      })
    }
    const served = deps.watermarks.get(CHAIN)
    if (served === null) throw new ApiError('dependency_unavailable', 'No chain-4663 batch is served yet; retry shortly.')
    const r = await deps.cache.get(`smart-holders:${CHAIN}:${params.token}:${served}`, deps.watermarks.version(CHAIN), () => smartHolders(deps.ch, params.token, served))
    return { data: { token: params.token, smart_holders: r.smart, holders: r.holders, judged: r.judged }, chain_id: CHAIN, measured_through_block: served }
  },
})
