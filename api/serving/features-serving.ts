import { queryRows } from '../../core/clickhouse.ts'
import { rosterWalletsTradingToken } from '../../core/records/roster-trading.ts'
import { roomRecordReportable, TG_K_THRESHOLD } from '../../core/domain/room-lead.ts'
import type { ApiDeps } from '../deps.ts'
import { iso, round } from '../views/caller.ts'
import { deployerView } from '../views/deployer.ts'
import { priceView, tokenView } from '../views/token.ts'
import { mentionSummary, tgRecords, voicesOf } from './social-queries.ts'

/**
 * The count of tracked-roster wallets (the ingested third-party leaderboard) that the live tape
 * recorded trading the token: counted, never identified (core/records/roster-trading.ts, one
 * keyed read). null while no roster has been ingested.
 */
async function rosterTradersOf(deps: Pick<ApiDeps, 'ch' | 'tokens'>, token: string): Promise<number | null> {
  const r = await rosterWalletsTradingToken(deps.ch, deps.tokens.chainId, token)
  return r.roster === 0 ? null : r.traded
}

type FeaturesDeps = Pick<ApiDeps, 'ch' | 'cache' | 'watermarks' | 'tokens' | 'social'>

/** The first liquidity of a pool (pool_first_mint, by key) with its WETH side (pools, by key). */
async function initialLiquidity(deps: FeaturesDeps, pool: string, token: string) {
  const [r] = await queryRows<{ a0: string; a1: string; liquidity: string; provider: string; block: string; at: string; token0: string }>(
    deps.ch,
    `SELECT f.1 AS a0, f.2 AS a1, f.3 AS liquidity, f.4 AS provider, f.5 AS block, toUnixTimestamp(f.6) AS at,
            (SELECT any(token0) FROM pools WHERE chain_id = {chain:UInt32} AND pool = {pool:String}) AS token0
     FROM (SELECT argMinMerge(first) AS f, count() AS n FROM pool_first_mint WHERE chain_id = {chain:UInt32} AND pool = {pool:String}) WHERE n > 0`,
    { chain: deps.tokens.chainId, pool },
  )
  if (!r) return null
  const { a0, a1, liquidity, provider, block, at } = r
  const tokenIs0 = r.token0 === token
  return {
    provider,
    block: Number(block),
    at: iso(Number(at)),
    weth_wei: tokenIs0 ? a1 : a0,
    token_amount: tokenIs0 ? a0 : a1,
    liquidity_units: liquidity,
  }
}

/** The agent feature row of one token, cached per key until the chain or the social data move. */
export async function agentFeatures(deps: FeaturesDeps, token: string) {
  const t = await deps.tokens.token(token)
  return deps.cache.get(`features:${token}`, deps.watermarks.socialChainVersion(deps.tokens.chainId), async () => {
    const d = t?.deployer ? await deps.tokens.deployer(t.deployer) : undefined
    const [liq, mentions, rooms, corpus, captured, roster] = await Promise.all([
      t?.launch ? initialLiquidity(deps, t.launch.pool, token) : null,
      mentionSummary(deps.ch, token),
      tgRecords(deps.ch, [token]),
      queryRows<{ t: string }>(deps.ch, 'SELECT toUnixTimestamp(max(seen_at)) AS t FROM tg_sightings'),
      // The capture clock: the newest capture minute of the mention stream (the minute view, not the raw rows).
      queryRows<{ t: string }>(deps.ch, 'SELECT toUnixTimestamp(max(hour)) AS t FROM mention_hourly'),
      rosterTradersOf(deps, token),
    ])
    const [callers, clusterOf] = await Promise.all([deps.social.callers(mentions.authors), deps.social.clusters(mentions.authors)])
    const measured = mentions.authors.map((a) => callers.get(a)).filter((c) => c?.measured)
    const voices = voicesOf(mentions.authors, clusterOf)
    const room = rooms.get(token)
    const reportable = roomRecordReportable(room)
    const tv = tokenView(token, t, d)
    const chainTime = deps.tokens.chainTime()
    const missing: string[] = []
    if (!t) missing.push('token: never seen on chain 4663')
    if (t && !t.deployer) missing.push('identity.deployer: contract creation not observed')
    if (t && !t.launch) missing.push('identity.first_pool: no WETH pool yet')
    if (roster === null) missing.push('observed.roster_traders: no tracked roster (leaderboard) has been ingested')
    if (!reportable) missing.push(`observed.messaging: fewer than ${TG_K_THRESHOLD} rooms (count-gated)`)
    return {
      data: {
        token,
        identity: {
          found: Boolean(t),
          name: tv.name,
          symbol: tv.symbol,
          decimals: tv.decimals,
          deployer: tv.deployer,
          created_block: tv.created_block,
          created_at: tv.created_at,
          first_pool: tv.launch,
          initial_liquidity: liq,
          supply_wei: t ? t.supplyWei.toString() : null,
        },
        current_state: {
          activity: {
            swaps: tv.swaps,
            weth_volume_wei: tv.weth_volume_wei,
            unique_traders: tv.unique_traders,
            first_swap_block: tv.first_swap_block,
            last_swap_block: tv.last_swap_block,
            last_swap_at: tv.last_swap_at,
            is_real: tv.is_real,
            real_block: tv.real_block,
            real_at: tv.real_at,
            dead: tv.dead,
            dead_reason: tv.dead_reason,
          },
          deployer: t?.deployer ? deployerView(t.deployer, d) : null,
          quote: t ? priceView(t) : null,
        },
        observed: {
          mentions: mentions.total,
          distinct_accounts: mentions.authors.length,
          first_mention: mentions.total > 0 ? { posted_at: iso(mentions.firstAt), captured_at: iso(mentions.firstCapturedAt) } : null,
          velocity_24h: mentions.velocity24h.map((v) => ({ hour: iso(v.hour), mentions: v.mentions })),
          measured_callers: measured.length,
          best_early_rate: measured.length ? round(Math.max(...measured.map((c) => c!.earlyRate))) : null,
          cluster_share: voices.accounts ? round(voices.clustered_accounts / voices.accounts) : null,
          independent_voices: voices.independent_voices,
          messaging: {
            reportable,
            k_threshold: TG_K_THRESHOLD,
            first_seen_at: reportable ? iso(room!.firstAt!) : null,
            rooms: reportable ? room!.rooms : null,
            messages: reportable ? room!.messages : null,
          },
          roster_traders: roster,
        },
        coverage: {
          chain: { measured_through_block: deps.tokens.measuredThrough(), chain_time: chainTime > 0 ? iso(chainTime) : null },
          capture: {
            mentions_through_hour: Number(captured[0]?.t ?? 0) > 0 ? iso(Number(captured[0]!.t)) : null,
            rooms_through: Number(corpus[0]?.t ?? 0) > 0 ? iso(Number(corpus[0]!.t)) : null,
          },
          generated_at: new Date().toISOString(),
          missing,
        },
      },
      point_in_time: false as const,
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  })
}
