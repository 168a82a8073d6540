import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { deployerScore, INSIDER_PREP_MIN_RECIPIENTS, scoreBand, type ScoreBand } from '../../core/domain/deployer-score.ts'
import { deadReason, ratioDecimal, type DeadReason } from '../../core/domain/token-status.ts'
import type { Logger } from '../../core/logger.ts'
import { namedQuery } from '../../sql/queries.ts'
import type { Watermarks } from './watermarks.ts'

export interface PriceQuote {
  pool: string
  /** WETH per whole token (decimals applied; 18 assumed when unknown), decimal string. */
  priceWeth: string
  fdvWethWei: bigint
  ethUsd: number | null
  fdvUsd: number | null
  observedAt: string
  observedBlock: number
}

export interface TokenRecord {
  token: string
  deployer: string | null
  name: string
  symbol: string
  decimals: number | null
  createdBlock: number | null
  createdAt: string | null
  launch: { pool: string; protocol: string; block: number; launchedAt: string; visibleUs: number } | null
  swaps: number
  wethVolumeWei: bigint
  traders: number
  firstSwapBlock: number | null
  lastSwapBlock: number | null
  lastSwapAt: string | null
  realBlock: number | null
  realAt: string | null
  quote: PriceQuote | null
  supplyWei: bigint
  liquidityAdded: bigint
  liquidityRemoved: bigint
  insiderPrep: boolean
  dead: DeadReason | null
}

export interface DeployerRecord {
  deployer: string
  launched: number
  real: number
  dead: number
  best: TokenRecord | null
  insiderPrep: boolean
  score: number | null
  band: ScoreBand | null
  /** Launched tokens, newest first. */
  launches: TokenRecord[]
}

/** Everything chain-4663 products answer from, computed once per watermark. */
export interface TokenBook {
  chainId: number
  measuredThrough: number | null
  tokens: Map<string, TokenRecord>
  deployers: Map<string, DeployerRecord>
  /** Launched tokens in feed order (visible_at ascending). */
  feed: TokenRecord[]
  /** Tokens by lowercase symbol. */
  bySymbol: Map<string, TokenRecord[]>
}

interface BookRow {
  token: string
  deployer: string
  name: string
  symbol: string
  decimals: number | null
  created_block: string
  created_at: string
  created: number
  launch_pool: string
  launch_protocol: string
  launch_block: string
  launched_at: string
  visible_us: string
  launched: number
  swaps: string
  weth_volume: string
  traders: string
  first_swap_block: string
  last_swap_block: string
  last_swap_time: string
  real_block: string
  real_at: string
  is_real: number
  quote: [string, string, string, string, string]
  quoted: number
  minted: string
  burned: string
  liquidity_added: string
  liquidity_removed: string
  prelaunch_recipients: string
  eth_usd: string | null
}

/** How long a request waits for the book of a new watermark before the previous one is served. */
const FRESH_WAIT_MS = 500

const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000)

function toRecord(r: BookRow, chainTime: number): TokenRecord {
  const traded = Number(r.swaps) > 0
  const supplyWei = BigInt(r.minted) - BigInt(r.burned)
  let quote: PriceQuote | null = null
  if (r.quoted) {
    const [weth, tokenAmount, pool, at, block] = r.quote
    const w = BigInt(weth)
    const t = BigInt(tokenAmount)
    const decimals = BigInt(r.decimals ?? 18)
    const fdvWethWei = t > 0n ? (supplyWei * w) / t : 0n
    const ethUsd = r.eth_usd !== null && r.eth_usd !== '' ? Number(r.eth_usd) : null
    quote = {
      pool,
      priceWeth: ratioDecimal(w * 10n ** decimals, t * 10n ** 18n),
      fdvWethWei,
      ethUsd,
      fdvUsd: ethUsd === null ? null : Math.round(Number(ratioDecimal(fdvWethWei, 10n ** 18n, 6)) * ethUsd * 100) / 100,
      observedAt: at,
      observedBlock: Number(block),
    }
  }
  const launch = r.launched
    ? { pool: r.launch_pool, protocol: r.launch_protocol, block: Number(r.launch_block), launchedAt: r.launched_at, visibleUs: Number(r.visible_us) }
    : null
  const lastActivity = traded ? unix(r.last_swap_time) : launch ? unix(launch.launchedAt) : r.created ? unix(r.created_at) : null
  const liquidityAdded = BigInt(r.liquidity_added)
  const liquidityRemoved = BigInt(r.liquidity_removed)
  return {
    token: r.token,
    deployer: r.created ? r.deployer : null,
    name: r.name,
    symbol: r.symbol,
    decimals: r.decimals,
    createdBlock: r.created ? Number(r.created_block) : null,
    createdAt: r.created ? r.created_at : null,
    launch,
    swaps: Number(r.swaps),
    wethVolumeWei: BigInt(r.weth_volume),
    traders: Number(r.traders),
    firstSwapBlock: traded ? Number(r.first_swap_block) : null,
    lastSwapBlock: traded ? Number(r.last_swap_block) : null,
    lastSwapAt: traded ? r.last_swap_time : null,
    realBlock: r.is_real ? Number(r.real_block) : null,
    realAt: r.is_real ? r.real_at : null,
    quote,
    supplyWei,
    liquidityAdded,
    liquidityRemoved,
    insiderPrep: Number(r.prelaunch_recipients) >= INSIDER_PREP_MIN_RECIPIENTS,
    dead: launch ? deadReason({ lastActivity, liquidityAdded, liquidityRemoved }, chainTime) : null,
  }
}

function deployersOf(tokens: Iterable<TokenRecord>): Map<string, DeployerRecord> {
  const out = new Map<string, DeployerRecord>()
  for (const t of tokens) {
    if (!t.deployer || !t.launch) continue
    let d = out.get(t.deployer)
    if (!d) out.set(t.deployer, (d = { deployer: t.deployer, launched: 0, real: 0, dead: 0, best: null, insiderPrep: false, score: null, band: null, launches: [] }))
    d.launched++
    if (t.realBlock !== null) d.real++
    if (t.dead) d.dead++
    if (t.insiderPrep) d.insiderPrep = true
    if (!d.best || t.wethVolumeWei > d.best.wethVolumeWei) d.best = t
    d.launches.push(t)
  }
  for (const d of out.values()) {
    d.launches.sort((a, b) => b.launch!.block - a.launch!.block || (a.token < b.token ? -1 : 1))
    d.score = deployerScore({ launched: d.launched, real: d.real, dead: d.dead, bestVolumeWei: d.best?.wethVolumeWei ?? 0n, insiderPrep: d.insiderPrep })
    d.band = scoreBand(d.score)
  }
  return out
}

async function loadBook(ch: ClickHouseClient, chainId: number, measuredThrough: number | null): Promise<TokenBook> {
  const [time] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = {chain:UInt32}', { chain: chainId })
  const chainTime = Number(time?.t ?? 0)
  const rows = await queryRows<BookRow>(ch, namedQuery('token_book'), { chain: chainId })
  const tokens = new Map(rows.map((r) => [r.token, toRecord(r, chainTime)]))
  const feed = [...tokens.values()].filter((t) => t.launch).sort((a, b) => a.launch!.visibleUs - b.launch!.visibleUs)
  const bySymbol = new Map<string, TokenRecord[]>()
  for (const t of tokens.values()) {
    if (!t.symbol) continue
    const k = t.symbol.toLowerCase()
    if (!bySymbol.has(k)) bySymbol.set(k, [])
    bySymbol.get(k)!.push(t)
  }
  return { chainId, measuredThrough, tokens, deployers: deployersOf(tokens.values()), feed, bySymbol }
}

export interface TokenBookSource {
  /** The book at the current watermark; while a newer one loads, the previous one is served. */
  get(): Promise<TokenBook>
}

export function createTokenBookSource(deps: { ch: ClickHouseClient; watermarks: Watermarks; logger: Logger }, opts: { freshWaitMs?: number } = {}, chainId = 4663): TokenBookSource {
  const freshWaitMs = opts.freshWaitMs ?? FRESH_WAIT_MS
  let current: TokenBook | undefined
  let currentVersion = ''
  let loading: Promise<TokenBook> | undefined
  let loadingVersion = ''

  function load(version: string): Promise<TokenBook> {
    if (loading && loadingVersion === version) return loading
    loadingVersion = version
    const p = loadBook(deps.ch, chainId, deps.watermarks.get(chainId))
    loading = p
    p.then(
      (book) => {
        if (!current || Number(version) >= Number(currentVersion) || currentVersion === 'none') {
          current = book
          currentVersion = version
        }
        if (loading === p) loading = undefined
      },
      (err) => {
        deps.logger.error({ err }, 'token book load failed')
        if (loading === p) loading = undefined
      },
    )
    return p
  }

  return {
    async get() {
      const version = deps.watermarks.version(chainId)
      if (current && currentVersion === version) return current
      const next = load(version)
      if (!current) return next
      // Wait briefly for the new book; past that, serve the previous one while it loads: the
      // answer stays consistent (it states the block it is measured through) and fast.
      const timeout = new Promise<TokenBook>((resolve) => setTimeout(() => resolve(current!), freshWaitMs).unref())
      return Promise.race([next.catch(() => current!), timeout])
    },
  }
}
