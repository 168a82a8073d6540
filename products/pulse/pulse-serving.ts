import { queryRows } from '../../core/clickhouse.ts'
import { pulseSignal, ratio, type PulseRuleCode, type PulseSignal } from './pulse.ts'
import { ratioDecimal } from '../token/token-status.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { iso, round } from '../social/caller-view.ts'
import { voicesOf } from '../social/social-queries.ts'

export interface PulseHour {
  swaps: number
  weth_volume_wei: string
  weth_volume: number
  traders: number
  buyers: number
  sellers: number
  net_buyers: number
  mentions: number
  accounts: number
  independent_voices: number
  close_price_weth: string | null
  close_block: number | null
  liquidity_added: string
  liquidity_removed: string
}

export interface TokenPulse {
  signal: PulseSignal
  data: {
    token: string
    found: boolean
    rule: PulseRuleCode
    window: { clock: 'chain'; chain_time: string | null; last: { from: string; to: string }; previous: { from: string; to: string } }
    last_hour: PulseHour
    previous_hour: PulseHour
    velocity: { swaps_ratio: number | null; traders_ratio: number | null; weth_volume_ratio: number | null; mentions_ratio: number | null; voices_ratio: number | null }
    price_move: number | null
    liquidity: { pool: string; protocol: string; start_of_last_hour: string; now: string; net_change_last_hour: string; removed_share_last_hour: number } | null
  }
  chain_id: number
  measured_through_block: number | null
}

type Quote = [string, string, string] // (weth wei, token base units, block)

/** WETH per whole token of a quote (decimal string), or null without one. */
function priceOf(q: Quote | null, decimals: number): string | null {
  if (!q || BigInt(q[1]) === 0n) return null
  return ratioDecimal(BigInt(q[0]) * 10n ** BigInt(decimals), BigInt(q[1]) * 10n ** 18n)
}

/** A quote read from an argMax state: null when the state was empty (its amounts are 0). */
function quoteOrNull(q: Quote | undefined): Quote | null {
  return q && BigInt(q[1]) > 0n ? q : null
}

/** p1 / p0 - 1 from the amounts (decimals cancel), 6 decimals; null without both prices. */
function move(p0: Quote | null, p1: Quote | null): number | null {
  if (!p0 || !p1) return null
  const num = BigInt(p1[0]) * BigInt(p0[1])
  const den = BigInt(p1[1]) * BigInt(p0[0])
  if (den === 0n) return null
  return round(Number(ratioDecimal(num, den, 12)) - 1, 6)
}

const toWeth = (wei: bigint) => round(Number(ratioDecimal(wei, 10n ** 18n, 9)), 9)

/**
 * The pulse of one token, cached per key until the chain or the social data move (DESIGN §6).
 * Access paths, all keyed: token_minute_activity and pool_liquidity_minute by (chain, key,
 * minute) over 120 minutes, mention_minute by (token, minute), the token's record and the
 * authors' clusters through the serving caches. Nothing reads a raw table.
 */
export async function tokenPulse(deps: Pick<ApiDeps, 'ch' | 'cache' | 'watermarks' | 'tokens' | 'social'>, token: string): Promise<TokenPulse> {
  const t = await deps.tokens.token(token)
  return deps.cache.get(`pulse:${token}`, deps.watermarks.socialChainVersion(deps.tokens.chainId), async () => {
    // The windows end at the block time of the block the answer is measured through (chain_blocks, by key).
    const served = deps.tokens.measuredThrough()
    const [head] = served === null ? [] : await queryRows<{ t: string }>(
      deps.ch,
      'SELECT toUnixTimestamp(timestamp) AS t FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} LIMIT 1',
      { chain: deps.tokens.chainId, n: served },
    )
    const chainTime = Number(head?.t ?? 0)
    const end = Math.floor(chainTime / 60) * 60
    const mid = end - 3600
    const start = mid - 3600
    const p = { chain: deps.tokens.chainId, t: token, start, mid, end }
    const pool = t?.launch?.pool ?? ''
    const [activity, closeBefore, liquidity, mentions] = await Promise.all([
      queryRows<{ last: number; swaps: string; vol: string; traders: string; buyers: string; sellers: string; q: Quote }>(
        deps.ch,
        `SELECT minute > toDateTime({mid:UInt32}) AS last, sum(swaps) AS swaps, sum(weth_volume) AS vol, uniqExactMerge(traders) AS traders,
                uniqExactMerge(buyers) AS buyers, uniqExactMerge(sellers) AS sellers, argMaxMerge(last_quote) AS q
         FROM token_minute_activity
         WHERE chain_id = {chain:UInt32} AND token = {t:String} AND minute > toDateTime({start:UInt32}) AND minute <= toDateTime({end:UInt32})
         GROUP BY last`,
        p,
      ),
      // The close before the previous hour's end, when that hour had no priced swap: the newest minute at or before it.
      queryRows<{ q: Quote }>(
        deps.ch,
        `SELECT argMaxMerge(last_quote) AS q FROM token_minute_activity
         WHERE chain_id = {chain:UInt32} AND token = {t:String} AND minute = (
           SELECT minute FROM token_minute_activity WHERE chain_id = {chain:UInt32} AND token = {t:String} AND minute <= toDateTime({start:UInt32})
           ORDER BY minute DESC LIMIT 1)`,
        p,
      ),
      pool
        ? queryRows<{ last: number; added: string; removed: string }>(
            deps.ch,
            `SELECT minute > toDateTime({mid:UInt32}) AS last, sum(added) AS added, sum(removed) AS removed FROM pool_liquidity_minute
             WHERE chain_id = {chain:UInt32} AND pool = {pool:String} AND minute > toDateTime({start:UInt32}) AND minute <= toDateTime({end:UInt32})
             GROUP BY last`,
            { ...p, pool },
          )
        : Promise.resolve([]),
      queryRows<{ last: number; posts: string; authors: string[] }>(
        deps.ch,
        `SELECT minute > toDateTime({mid:UInt32}) AS last, uniqExactMerge(posts) AS posts, groupUniqArrayMerge(authors) AS authors FROM mention_minute
         WHERE token = {t:String} AND minute > toDateTime({start:UInt32}) AND minute <= toDateTime({end:UInt32})
         GROUP BY last`,
        p,
      ),
    ])
    const clusterOf = await deps.social.clusters([...new Set(mentions.flatMap((m) => m.authors))])
    const decimals = t?.decimals ?? 18

    function hour(last: boolean, fallbackClose: Quote | null): { view: PulseHour; close: Quote | null; voices: number; vol: bigint } {
      const a = activity.find((r) => Boolean(Number(r.last)) === last)
      const l = liquidity.find((r) => Boolean(Number(r.last)) === last)
      const m = mentions.find((r) => Boolean(Number(r.last)) === last)
      const authors = m?.authors ?? []
      const voices = voicesOf(authors, clusterOf).independent_voices
      const close = quoteOrNull(a?.q) ?? fallbackClose
      const vol = BigInt(a?.vol ?? 0)
      const buyers = Number(a?.buyers ?? 0)
      const sellers = Number(a?.sellers ?? 0)
      return {
        close,
        voices,
        vol,
        view: {
          swaps: Number(a?.swaps ?? 0),
          weth_volume_wei: vol.toString(),
          weth_volume: toWeth(vol),
          traders: Number(a?.traders ?? 0),
          buyers,
          sellers,
          net_buyers: buyers - sellers,
          mentions: Number(m?.posts ?? 0),
          accounts: authors.length,
          independent_voices: voices,
          close_price_weth: priceOf(close, decimals),
          close_block: close ? Number(close[2]) : null,
          liquidity_added: (l?.added ?? '0').toString(),
          liquidity_removed: (l?.removed ?? '0').toString(),
        },
      }
    }
    const previous = hour(false, quoteOrNull(closeBefore[0]?.q))
    const last = hour(true, previous.close)

    let liq: TokenPulse['data']['liquidity'] = null
    let removedShare: number | null = null
    if (t?.launch) {
      const now = t.liquidityAdded - t.liquidityRemoved
      const net = BigInt(last.view.liquidity_added) - BigInt(last.view.liquidity_removed)
      const startLiq = now - net
      const removedNet = net < 0n ? -net : 0n
      removedShare = startLiq > 0n ? Number((removedNet * 10_000n) / startLiq) / 10_000 : 0
      liq = {
        pool: t.launch.pool,
        protocol: t.launch.protocol,
        start_of_last_hour: startLiq.toString(),
        now: now.toString(),
        net_change_last_hour: net.toString(),
        removed_share_last_hour: removedShare,
      }
    }
    const s = pulseSignal({
      last: { swaps: last.view.swaps, traders: last.view.traders, mentions: last.view.mentions, independentVoices: last.voices },
      previous: { swaps: previous.view.swaps, traders: previous.view.traders, mentions: previous.view.mentions, independentVoices: previous.voices },
      liquidityRemovedShare: removedShare,
    })
    return {
      signal: s.signal,
      data: {
        token,
        found: Boolean(t),
        rule: s.rule,
        window: {
          clock: 'chain' as const,
          chain_time: chainTime > 0 ? iso(chainTime) : null,
          last: { from: iso(mid + 60), to: iso(end + 60) },
          previous: { from: iso(start + 60), to: iso(mid + 60) },
        },
        last_hour: last.view,
        previous_hour: previous.view,
        velocity: {
          swaps_ratio: ratio(last.view.swaps, previous.view.swaps),
          traders_ratio: ratio(last.view.traders, previous.view.traders),
          weth_volume_ratio: previous.vol === 0n ? null : round(Number(ratioDecimal(last.vol, previous.vol, 8)), 4),
          mentions_ratio: ratio(last.view.mentions, previous.view.mentions),
          voices_ratio: ratio(last.voices, previous.voices),
        },
        price_move: move(previous.close, last.close),
        liquidity: liq,
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: served,
    }
  })
}
