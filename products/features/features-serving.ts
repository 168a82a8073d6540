import { queryRows } from '../../core/clickhouse.ts'
import { rosterWalletsTradingTokens } from '../wallet/roster-trading.ts'
import { roomRecordReportable, TG_K_THRESHOLD } from '../social/room-lead.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { iso, round } from '../social/caller-view.ts'
import { deployerView } from '../token/deployer-view.ts'
import { priceView, tokenView } from '../token/token-view.ts'
import { mentionSummary, tgRecords, voicesOf, type MentionSummary } from '../social/social-queries.ts'
import type { RoomRecord } from '../social/room-lead.ts'
import type { TokenRecord } from '../token/token-state.ts'
import type { DeployerRecord } from '../token/deployer-state.ts'
import type { CallerRecord } from '../social/caller-state.ts'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import { createRefreshAhead, REFRESH_BATCH_KEYS } from '../../core/serving/refresh-ahead.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import { readAheadPerVersion } from '../../core/serving/read-ahead-on-advance.ts'
import { readClocks, tokenSocial, type SocialClocks } from '../social/token-social.ts'

/**
 * The count of tracked-roster wallets (the ingested third-party leaderboard) that the live tape
 * recorded trading each token: counted, never identified (products/wallet/roster-trading.ts, one
 * keyed read for them all). null while no roster has been ingested.
 */
async function rosterTradersOfMany(deps: Pick<ApiDeps, 'ch' | 'tokens'>, tokens: string[]): Promise<Map<string, number | null>> {
  const r = await rosterWalletsTradingTokens(deps.ch, deps.tokens.chainId, tokens)
  return new Map(tokens.map((t) => [t, r.roster === 0 ? null : r.traded.get(t)!]))
}

type FeaturesDeps = Pick<ApiDeps, 'ch' | 'watermarks' | 'tokens' | 'social'>

type InitialLiquidity = { provider: string; block: number; at: string; weth_wei: string; token_amount: string; liquidity_units: string }

/**
 * The first liquidity of each launch pool (pool_first_mint, by key) with its WETH side (pools, by
 * key), in one statement for them all; a pool never minted into is absent.
 */
async function initialLiquidities(deps: FeaturesDeps, launches: Array<{ token: string; pool: string }>): Promise<Map<string, InitialLiquidity>> {
  const out = new Map<string, InitialLiquidity>()
  if (launches.length === 0) return out
  const pools = [...new Set(launches.map((l) => l.pool))]
  const rows = await queryRows<{ pool: string; a0: string; a1: string; liquidity: string; provider: string; block: string; at: string; token0: string }>(
    deps.ch,
    `SELECT m.pool AS pool, m.f.1 AS a0, m.f.2 AS a1, m.f.3 AS liquidity, m.f.4 AS provider, m.f.5 AS block, toUnixTimestamp(m.f.6) AS at, p.token0 AS token0
     FROM (SELECT pool, argMinMerge(first) AS f FROM pool_first_mint WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)} GROUP BY pool) AS m
     LEFT JOIN (SELECT pool, any(token0) AS token0 FROM pools WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)} GROUP BY pool) AS p ON p.pool = m.pool`,
    { chain: deps.tokens.chainId, pools },
  )
  const byPool = new Map(rows.map((r) => [r.pool, r]))
  for (const { token, pool } of launches) {
    const r = byPool.get(pool)
    if (!r) continue
    const tokenIs0 = r.token0 === token
    out.set(token, {
      provider: r.provider,
      block: Number(r.block),
      at: iso(Number(r.at)),
      weth_wei: tokenIs0 ? r.a1 : r.a0,
      token_amount: tokenIs0 ? r.a0 : r.a1,
      liquidity_units: r.liquidity,
    })
  }
  return out
}

/** The chain part of tokens' rows: their launch pools' first liquidity and their roster traders. */
async function chainPartsOf(deps: FeaturesDeps, tokens: Array<{ token: string; t: TokenRecord | undefined }>) {
  const launches = tokens.flatMap(({ token, t }) => (t?.launch ? [{ token, pool: t.launch.pool }] : []))
  const [liquidity, roster] = await Promise.all([initialLiquidities(deps, launches), rosterTradersOfMany(deps, tokens.map((x) => x.token))])
  return new Map(tokens.map(({ token }) => [token, { liquidity: liquidity.get(token) ?? null, roster: roster.get(token)! }]))
}

/** Values every token's row shares: the social clocks and the roster's identity. */
interface Globals {
  /** The room corpus clock: the newest sighting (unix seconds, 0 without one). */
  corpus: number
  /** The firehose clock: the newest mention hour (the mentions' 24 h window ends at its hour). */
  clock: number
  /** The roster's identity: its latest ingested (claimed_at, source). */
  roster: string
}

/** The tracked roster: its identity, the latest ingested (claimed_at, source), and its wallets. */
interface Roster {
  id: string
  wallets: Set<string>
}

async function latestRoster(ch: FeaturesDeps['ch']): Promise<Roster> {
  const [r] = await queryRows<{ roster: string; wallets: string[] }>(
    ch,
    // The latest (claimed_at, source): the end of the table's key, read in reverse key order (the
    // default tuple on an empty table, as max gives).
    `WITH (SELECT max((claimed_at, source)) FROM (SELECT claimed_at, source FROM leaderboard_claims ORDER BY claimed_at DESC, source DESC LIMIT 1)) AS latest
     SELECT toString(latest) AS roster, groupUniqArray(wallet) AS wallets FROM leaderboard_claims WHERE (claimed_at, source) = latest`,
  )
  return { id: r?.roster ?? '', wallets: new Set(r?.wallets ?? []) }
}

async function globalsOf(deps: FeaturesDeps, clocks: SocialClocks): Promise<Globals> {
  return { corpus: clocks.corpus, clock: clocks.firehose, roster: (await latestRoster(deps.ch)).id }
}

/** What a token's row reads beyond its token, deployer and caller records. */
interface FeatureParts {
  liquidity: InitialLiquidity | null
  mentions: MentionSummary
  room: RoomRecord | undefined
  roster: number | null
}

function readParts(deps: FeaturesDeps, token: string, t: TokenRecord | undefined, g: Globals): Promise<FeatureParts> {
  return Promise.all([
    chainPartsOf(deps, [{ token, t }]).then((m) => m.get(token)!),
    mentionSummary(deps.ch, token, g.clock),
    tgRecords(deps.ch, [token]).then((m) => m.get(token)),
  ]).then(([{ liquidity, roster }, mentions, room]) => ({ liquidity, mentions, room, roster }))
}

/**
 * A token's parts, kept per token and dropped by what changes each (DESIGN §6): the initial
 * liquidity and the roster's traders when a batch names the token (or the roster is replaced);
 * the mention summary and room record as the social parts keep them (products/social/token-social.ts).
 * Everything else in the row is a kept token, deployer or caller record.
 */
function createKeptFeatures(deps: FeaturesDeps) {
  const chain = createKeyedCache<Pick<FeatureParts, 'liquidity' | 'roster'> & { rosterId: string }>(FEATURES_KEPT_TOKENS, 'features_chain')
  const social = tokenSocial(deps)
  const rosterNow = readAheadPerVersion(deps.watermarks, () => deps.watermarks.socialChainVersion(deps.tokens.chainId), async () => (roster = await latestRoster(deps.ch)))
  /** The roster last read (its wallets decide which changes can move a token's roster count). */
  let roster: Roster | undefined
  const ahead = createRefreshAhead({
    recentMs: FEATURES_REFRESH_AHEAD_MS,
    concurrency: 2,
    maxKeys: FEATURES_KEPT_TOKENS,
    batchKeys: REFRESH_BATCH_KEYS,
    // The tokens a batch dropped: their chain parts read together (their social parts are kept
    // apart, dropped by the social changes, and read on the next ask if gone).
    load: async (keys) => {
      const [records, g] = await Promise.all([deps.tokens.tokens(keys), keeper.globals()])
      await chain.getMany(keys, (missing) => readChainMany(missing.map((token) => ({ token, t: records.get(token) })), g), {
        liquidity: null, roster: null, rosterId: g.roster,
      })
    },
  })
  deps.tokens.onChanges((changes) => {
    if (changes === null) return chain.clear()
    // A token's chain part outlives the changes that cannot move it: its launch pool's first
    // liquidity is frozen once minted (only a reorg, which clears everything, takes it back), and
    // its roster traders grow only when a roster wallet trades it (a batch names every wallet that
    // traded in it). So a named token keeps its part when the part has its liquidity, was counted
    // against the roster last read, and no roster wallet is named beside it. Before the first
    // mint, or with a roster wallet trading, the part is read again.
    const rosterTraded = !roster || changes.some((c) => c.kind === 'wallet' && roster!.wallets.has(c.key))
    for (const c of changes) {
      if (c.kind !== 'token') continue
      const part = chain.peek(c.key)?.value
      if (part && part.liquidity !== null && !rosterTraded && part.rosterId === roster!.id) continue
      chain.delete(c.key)
      ahead.dropped(c.key)
    }
  })
  const readChainMany = async (tokens: Array<{ token: string; t: TokenRecord | undefined }>, g: Globals) =>
    new Map([...(await chainPartsOf(deps, tokens))].map(([token, part]) => [token, { ...part, rosterId: g.roster }]))
  const readChain = (token: string, t: TokenRecord | undefined, g: Globals) => async () => (await readChainMany([{ token, t }], g)).get(token)!
  const keeper = {
    asked: ahead.asked,
    async globals(): Promise<Globals> {
      const [clocks, r] = await Promise.all([social.clocks(), rosterNow()])
      return { corpus: clocks.corpus, clock: clocks.firehose, roster: r.id }
    },
    async parts(token: string, t: TokenRecord | undefined, g: Globals): Promise<FeatureParts> {
      const [c, mentions, rooms] = await Promise.all([
        chain.get(token, readChain(token, t, g)).then((v) => {
          if (v.rosterId === g.roster) return v
          // The roster was replaced: its traders are counted again.
          chain.delete(token)
          return chain.get(token, readChain(token, t, g))
        }),
        social.mentionSummary(token, g.clock),
        social.rooms([token]),
      ])
      return { liquidity: c.liquidity, roster: c.roster, mentions, room: rooms.get(token) }
    },
  }
  return keeper
}

/** Tokens whose feature parts are kept, per part (least recently used dropped first). */
export const FEATURES_KEPT_TOKENS = 20_000

/** A token's feature row asked within this long has its chain part read again as soon as a batch drops it. */
export const FEATURES_REFRESH_AHEAD_MS = 120_000

const kept = new WeakMap<FeaturesDeps['tokens'], ReturnType<typeof createKeptFeatures>>()

/** The agent feature row of one token, from what is kept for it (a lookup until its token changes). */
export async function agentFeatures(deps: FeaturesDeps, token: string) {
  let k = kept.get(deps.tokens)
  if (!k) kept.set(deps.tokens, (k = createKeptFeatures(deps)))
  k.asked(token)
  const t = await deps.tokens.token(token)
  const g = await k.globals()
  return featureRow(deps, token, t, g, await k.parts(token, t, g), keptRows)
}

/** Feature rows kept per token: made again when anything a row is made of changes. */
const keptRows = new KeptByInputs<FeatureRow>(FEATURES_KEPT_TOKENS)

/** The same row read wholly from the engine (what the kept one is held against). */
export async function agentFeaturesFresh(deps: FeaturesDeps, token: string) {
  const t = await deps.tokens.token(token)
  const g = await globalsOf(deps, await readClocks(deps.ch))
  return featureRow(deps, token, t, g, await readParts(deps, token, t, g))
}

/**
 * A token's feature row. With `kept`, the row (and its JSON: core/serving/rendered-json.ts) is
 * made once per set of what it is made of, and `generated_at` says when: the records, the parts,
 * the callers and clusters of its authors, the clocks and the watermark.
 */
async function featureRow(deps: FeaturesDeps, token: string, t: TokenRecord | undefined, g: Globals, parts: FeatureParts, kept?: KeptByInputs<FeatureRow>): Promise<FeatureRow> {
  const { liquidity: liq, mentions, room, roster } = parts
  const d = t?.deployer ? await deps.tokens.deployer(t.deployer) : undefined
  const [callers, clusterOf] = await Promise.all([deps.social.callers(mentions.authors), deps.social.clusters(mentions.authors)])
  const make = () => makeFeatureRow(deps, token, t, d, g, parts, callers, clusterOf)
  if (!kept) return make()
  const { authors } = mentions
  const inputs = [t, d, g.clock, g.corpus, g.roster, liq, roster, mentions, room, deps.tokens.measuredThrough(), deps.tokens.chainTime(), ...authors.map((a) => callers.get(a)), ...authors.map((a) => clusterOf.get(a))]
  return kept.get(token, inputs, () => {
    const row = make()
    renderOnce(row.data)
    return row
  })
}

type FeatureRow = ReturnType<typeof makeFeatureRow>

function makeFeatureRow(
  deps: FeaturesDeps,
  token: string,
  t: TokenRecord | undefined,
  d: DeployerRecord | undefined,
  g: Globals,
  parts: FeatureParts,
  callers: Map<string, CallerRecord>,
  clusterOf: Map<string, string>,
) {
  const { liquidity: liq, mentions, room, roster } = parts
  const measured = mentions.authors.map((a) => callers.get(a)).filter((c) => c?.measured)
  const voices = voicesOf(mentions.authors, clusterOf)
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
          mentions_through_hour: g.clock > 0 ? iso(g.clock) : null,
          rooms_through: g.corpus > 0 ? iso(g.corpus) : null,
        },
        generated_at: new Date().toISOString(),
        missing,
      },
    },
    point_in_time: false as const,
    chain_id: deps.tokens.chainId,
    measured_through_block: deps.tokens.measuredThrough(),
  }
}
