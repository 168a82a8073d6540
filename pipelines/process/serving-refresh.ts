import { engineStep } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { launchesMark, lastServedBatch, nextServingSeq, type ServingChange } from '../../core/records/serving-changes.ts'
import { othersNamedBetween } from './batch-push.ts'
import { countNewTraders, recountChainTotals, type CountedBefore } from '../../products/token/chain-totals.ts'
import { readDeployerTokens, refreshDeployerStates, storedDeployersOf, writeTokenStates } from '../../products/token/token-refresh.ts'
import { deployersTurnedIdle, type IdleWatch } from '../../products/token/idle-deployers.ts'
import type { TokenFacts } from '../../products/token/token-facts.ts'
import { catchUpFifo, foldBlocks, pairsOfSwaps, type TradedPairs } from '../../products/wallet/fifo-refresh.ts'
import { sideBySide } from '../../core/side-by-side.ts'
import { deferred } from '../../core/deferred.ts'
import { keepsTokenProducts } from '../../core/chains.ts'

/** The keys a batch touched: every token whose state may have changed, and those it launched. */
export interface ServingTouch {
  tokens: Set<string>
  /** Tokens whose launch the batch ingested: their pre-launch distribution is computed now, once. */
  launched: Set<string>
  /** The earliest launch time (unix s) among `launched` (-Infinity when a launch row lacks it); unset without launches. */
  launchedFrom?: number
  /** Senders of the batch's swaps and the tokens they traded (chain totals count the new ones). */
  traders: Set<string>
  tradedTokens: Set<string>
  /** Wallets whose receipts changed outside the batch's legs (a reorg rebuilt their FIFO state). */
  wallets?: Set<string>
  /** The batch's wallet-token pairs with legs, from its swap rows (else read back by block range). */
  tradedPairs?: TradedPairs
  /** The batch's FIFO fold, started by the caller once its swaps were in (answers the wallets advanced). */
  folding?: Promise<Set<string>>
}

export interface RefreshResult {
  tokens: number
  deployers: number
  seq: number
  /** The chain time it is refreshed through. */
  chainTime: number
  /** Tokens that turned real in it (their block searched and recorded here). */
  turnedReal: number
  /** What the next batch needs to know of idle times (products/token/idle-deployers.ts). */
  idleWatch?: IdleWatch
  /** The keys it named in serving_changes, by kind (what a push of the batch carries). */
  named: { tokens: string[]; deployers: string[]; wallets: string[] }
  /** With `namedSince`: what other writers named since (batch-push.ts `othersNamedBetween`). */
  others?: ServingChange[] | null
}

/**
 * What a refresh is for, said explicitly (issue 24: block 0 is a block like any other, so no block
 * number may double as "everything"):
 *  - `batch`: blocks [fromBlock, watermark] were just inserted; their legs are folded and their
 *    traders counted, whatever fromBlock is (0 included);
 *  - `rollback`: a reorg removed blocks; the wallets whose FIFO it refolded come in the touch,
 *    nothing new is folded or counted;
 *  - `rebuild`: every token, page by page; the FIFO state is caught up by catchUpFifo, the
 *    totals by a recount, so nothing is folded or counted per page.
 */
export type RefreshScope = { kind: 'batch'; fromBlock: number } | { kind: 'rollback' } | { kind: 'rebuild' }

/**
 * Tokens touched in blocks [from, to], read by block range from the block-ordered raw tables:
 * what a restart re-refreshes when a batch was inserted but its refresh did not finish.
 */
export async function touchedInBlocks(ch: ClickHouseClient, chainId: number, from: number, to: number): Promise<ServingTouch> {
  const p = { chain: chainId, from, to }
  const range = 'chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}'
  const [tokens, launched, swapped] = await Promise.all([
    queryRows<{ token: string }>(
      ch,
      `SELECT DISTINCT token FROM (
         SELECT token FROM swaps WHERE ${range}
         UNION ALL SELECT token FROM erc20_transfers WHERE ${range}
         UNION ALL SELECT address AS token FROM contract_creations WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}
         UNION ALL SELECT arrayJoin([token0, token1]) AS token FROM pools WHERE ${range}
         UNION ALL SELECT p.token FROM (SELECT pool FROM liquidity_events WHERE ${range}) AS l
                   INNER JOIN (SELECT token, pool FROM launches WHERE chain_id = {chain:UInt32}) AS p ON p.pool = l.pool)`,
      p,
    ),
    queryRows<{ token: string }>(ch, `SELECT token FROM launches WHERE ${range}`, p),
    queryRows<{ trader: string; token: string }>(ch, `SELECT DISTINCT trader, token FROM swaps WHERE ${range}`, p),
  ])
  const launchedSet = new Set(launched.map((r) => r.token))
  return {
    tokens: new Set([...tokens.map((r) => r.token), ...launchedSet]),
    launched: launchedSet,
    traders: new Set(swapped.map((r) => r.trader)),
    tradedTokens: new Set(swapped.map((r) => r.token)),
  }
}

/**
 * Refresh the serving state of what one batch touched (DESIGN §6: work proportional to the
 * batch), each product's part for the batch's keys: the chain totals' new traders and the token
 * and deployer records (`products/token/`), the traded wallets' FIFO state
 * (`products/wallet/fifo-refresh.ts`); then one insert into serving_changes naming every changed
 * key and marking the batch, which is what API processes invalidate their kept answers by.
 * Every read is keyed; nothing reads all tokens.
 */
export async function refreshServingState(
  ch: ClickHouseClient,
  chainId: number,
  touch: ServingTouch,
  at: {
    watermark: number
    chainTime: number
    scope: RefreshScope
    watermarkHash: string
    /** The chain time of the last batch served, when the caller served it (else read from serving_changes). */
    servedChainTime?: number
    /** The idle watch the caller's previous batch left (a batch's only). */
    idleWatch?: IdleWatch
    /** The traders and tokens the caller knows were counted (a batch's new ones are counted by key). */
    counted?: CountedBefore
    /**
     * A batch's `chain_blocks` insert (its watermark), when it runs beside this refresh: awaited
     * before what reads that table (a turned-real token's block time) and before the batch is
     * published in serving_changes. Nothing else here reads it.
     */
    blocksIn?: Promise<unknown>
    /** The frozen token facts the caller's processor keeps (a batch's refresh only). */
    facts?: TokenFacts
    /**
     * Work that reads the refreshed token and deployer records (the processor's +15 min
     * verdicts): started with the records, told when they are written (and the batch's
     * watermark is in), so what it reads first (what fell due) runs beside them; done before the
     * batch is published.
     */
    afterRecords?: (recordsWritten: Promise<void>) => Promise<unknown>
    /**
     * A batch to be pushed to its followers: the seq of the change its processor wrote before it.
     * What other writers named since is read beside its serving_changes insert (`others`).
     */
    namedSince?: number
  },
): Promise<RefreshResult> {
  const batch = at.scope.kind === 'batch' ? at.scope : null
  const version = nextServingSeq()
  // The arc chain's batches keep no token or deployer records (core/chains.ts): its refresh
  // publishes the batch, with the wallets its fold advanced, and nothing else.
  const products = keepsTokenProducts(chainId)
  const tokens = products ? [...touch.tokens] : []
  let turnedReal = 0
  const served = products ? (at.servedChainTime ?? (await lastServedBatch(ch, chainId))?.chainTime) : undefined
  // The chain time of the previous batch, when time moved since: what left a time window between
  // them (none without token records: no deployer can turn idle).
  const since = served !== undefined && at.chainTime > served ? served : null
  // Three independent parts side by side (the engine runs statements concurrently, and most of a
  // live batch's statement time is planning, one thread each): the chain totals' new traders;
  // the token records, then their deployers' (which read them), with what reads both (the +15
  // min verdicts, whose read of what fell due runs beside them); the FIFO state of the
  // wallet-tokens a batch traded (a batch from block 0 too; a rollback names the wallets it
  // refolded, a rebuild leaves the FIFO to catchUpFifo). Each is idempotent, and a failure is
  // rethrown once all have settled. (The tokens whose 24 h holder window moved are not named
  // here: a kept /structure answer knows the first block its window counted,
  // products/structure/structure-serving.ts.)
  // The deployers whose tokens turned idle since the previous batch, read beside the token records
  // (a batch before the watch's next idle time reads nothing; other scopes keep no watch).
  const idle = deployersTurnedIdle(engineStep(ch, 'idle'), chainId, { since, chainTime: at.chainTime, watch: batch ? at.idleWatch : undefined })
  // Awaited below; marked handled now, in case the records fail before they get to it.
  idle.catch(() => {})
  // The token records (with the real blocks of the tokens that turned real), then their
  // deployers' records, which read them. A live batch's deployer records are made from the rows
  // it writes laid over its deployers' other tokens as stored, read beside the token records'
  // sources (the deployers its kept facts name; only this processor writes the chain's
  // token_state, and its batches run one at a time), so neither waits for the other's insert.
  const refreshRecords = async (): Promise<Set<string>> => {
    // A batch only adds facts, so its tokens' deployers are the ones their new rows name; a
    // rollback or a rebuild may have taken a token's creation away: the deployers stored before count too.
    const before = batch ? new Set<string>() : await storedDeployersOf(ch, chainId, tokens)
    const facts = batch ? at.facts : undefined
    const named = new Set(facts ? tokens.map((t) => facts.deployerOf(t)).filter((d): d is string => d !== undefined) : [])
    const stored = named.size ? { deployers: named, rows: readDeployerTokens(engineStep(ch, 'deployers'), chainId, named) } : undefined
    stored?.rows.catch(() => {})
    // The tokens the batch traded may have turned real: the records' read tells (and records it).
    const own = await writeTokenStates(ch, chainId, { tokens, launched: touch.launched, version, traded: batch ? touch.tradedTokens : undefined, blocksIn: at.blocksIn, facts, candlesThrough: batch ? at.chainTime : undefined, onTurnedReal: (t) => (turnedReal += t.length) })
    const deployers = new Set([...before, ...own.deployers, ...(await idle).deployers])
    // Rows the engine made are known only once in, and read back with the rest.
    if (!own.rows) {
      await own.written
      await stored?.rows.catch(() => {})
      return refreshDeployerStates(ch, chainId, { deployers, chainTime: at.chainTime, version })
    }
    const [, refreshed] = await sideBySide([own.written, refreshDeployerStates(ch, chainId, { deployers, chainTime: at.chainTime, version, written: own.rows, stored })] as const)
    return refreshed
  }
  const [, deployers, folded] = await sideBySide([
    batch ? countNewTraders(engineStep(ch, 'traders'), chainId, { traders: touch.traders, tokens: touch.tradedTokens, fromBlock: batch.fromBlock, token: `chain-totals:${chainId}:${batch.fromBlock}:${at.watermark}:${at.watermarkHash}` }, at.counted) : Promise.resolve(),
    products ? (async () => {
      const recordsWritten = deferred()
      const after = at.afterRecords?.(recordsWritten.promise)
      after?.catch(() => {})
      try {
        const refreshed = await refreshRecords()
        await at.blocksIn
        recordsWritten.resolve()
        await after
        return refreshed
      } catch (err) {
        recordsWritten.reject(err)
        await after?.catch(() => {})
        throw err
      }
    })() : Promise.resolve(new Set<string>()),
    batch ? (touch.folding ?? foldBatch(ch, chainId, batch.fromBlock, at.watermark, touch.tradedPairs)) : Promise.resolve(new Set<string>()),
  ] as const)
  // Every sender of the batch's swaps is named, not only the wallets its fold advanced (a swap
  // that makes no leg still makes its sender a trader of the token: /agent/features' roster count).
  const wallets = new Set([...(touch.wallets ?? []), ...folded, ...(batch ? touch.traders : [])])
  await at.blocksIn

  const change = (kind: string, key: string) => ({ chain_id: chainId, seq: version, kind, key, watermark: at.watermark, chain_time: at.chainTime })
  // Beside the insert, not after it: the batch's own rows are not among what it reads.
  const others = at.namedSince !== undefined ? othersNamedBetween(engineStep(ch, 'push'), chainId, at.namedSince, version) : undefined
  others?.catch(() => {})
  await ch.insert({
    table: 'serving_changes',
    values: [
      ...tokens.map((t) => change('token', t)), ...[...deployers].map((d) => change('deployer', d)), ...[...wallets].map((w) => change('wallet', w)),
      // A batch's marker says how many launches it served: an API process reads its feed window's
      // new launches only after a batch that had some (a marker without the count: it reads).
      change('batch', batch ? launchesMark(touch.launched.size) : ''),
    ],
    format: 'JSONEachRow',
  })
  return {
    tokens: tokens.length, deployers: deployers.size, seq: version, chainTime: at.chainTime, turnedReal, idleWatch: batch ? (await idle).watch : undefined,
    named: { tokens, deployers: [...deployers], wallets: [...wallets] },
    others: others && (await others),
  }
}

/**
 * The FIFO fold of a batch's blocks [fromBlock, watermark] (the refresh's `fifo` step). It reads
 * only wallet_legs, which the swaps' insert fills: a processor may start it as soon as that
 * insert is in, beside the batch's other inserts (`ServingTouch.folding`). Idempotent.
 */
export function foldBatch(ch: ClickHouseClient, chainId: number, fromBlock: number, watermark: number, traded?: TradedPairs): Promise<Set<string>> {
  return foldBlocks(engineStep(ch, 'fifo'), chainId, fromBlock, watermark, traded)
}

/**
 * After a restart: refresh what was ingested but not yet refreshed. Normally that is the one
 * batch inserted before a crash (blocks after the last served batch, at most one batch). On a
 * data dir with no served batch yet (one from before serving state existed), or a gap larger
 * than any batch, it is a rebuild: every token, a page of keys at a time in key order, so memory
 * stays bounded whatever the history; traders are counted by a recount of the chain totals.
 */
export async function catchUpServingState(
  ch: ClickHouseClient,
  chainId: number,
  watermark: number,
  opts: { onPage?: (tokensDone: number) => void } = {},
): Promise<RefreshResult | null> {
  if (watermark < 0) return null
  const last = await lastServedBatch(ch, chainId)
  if (last && last.watermark >= watermark) return null
  const head = await blockAt(ch, chainId, watermark)
  const at = { watermark, chainTime: head.time, watermarkHash: head.hash }
  if (last && watermark - last.watermark <= MAX_UNSERVED_BLOCKS) {
    const touch = await touchedInBlocks(ch, chainId, last.watermark + 1, watermark)
    return refreshServingState(ch, chainId, touch, { ...at, scope: { kind: 'batch', fromBlock: last.watermark + 1 } })
  }
  // A gap no batch can leave (history loaded behind the processor's back): count the totals
  // afresh and rebuild every token, as for a data dir that never had serving state.
  if (last) {
    await recountChainTotals(ch, chainId)
    // Legs of the gap were never folded by a batch: every wallet-token whose state lacks legs is refolded.
    await catchUpFifo(ch, chainId)
  }
  let result: RefreshResult | null = null
  let done = 0
  // A chain whose token products keep no state has no records to build: its batch is published.
  for (let after = ''; keepsTokenProducts(chainId); ) {
    const page = await queryRows<{ token: string; launched: number }>(
      ch,
      `SELECT token, max(launched) AS launched FROM (
         SELECT address AS token, 0 AS launched FROM contract_creations WHERE chain_id = {chain:UInt32} AND address > {after:String} ORDER BY address LIMIT {n:UInt32}
         UNION ALL
         SELECT token, 1 AS launched FROM launches WHERE chain_id = {chain:UInt32} AND token > {after:String} ORDER BY token LIMIT {n:UInt32})
       GROUP BY token ORDER BY token LIMIT {n:UInt32}`,
      { chain: chainId, after, n: BUILD_PAGE },
    )
    if (page.length === 0) break
    const tokens = new Set(page.map((r) => r.token))
    const launched = new Set(page.filter((r) => Number(r.launched)).map((r) => r.token))
    result = await refreshServingState(ch, chainId, { tokens, launched, traders: new Set(), tradedTokens: new Set() }, { ...at, scope: { kind: 'rebuild' } })
    done += page.length
    opts.onPage?.(done)
    after = page[page.length - 1]!.token
  }
  return result ?? refreshServingState(ch, chainId, { tokens: new Set(), launched: new Set(), traders: new Set(), tradedTokens: new Set() }, { ...at, scope: { kind: 'rebuild' } })
}

/** The most blocks one batch can hold (PIPELINE_BATCH_BLOCKS' upper bound). */
const MAX_UNSERVED_BLOCKS = 10_000

/** Tokens per page of the one-time build. */
const BUILD_PAGE = 2_000

/** Time and hash of one block, read by its (chain_id, number) key. */
export async function blockAt(ch: ClickHouseClient, chainId: number, n: number): Promise<{ time: number; hash: string }> {
  const [b] = await queryRows<{ t: number; hash: string }>(
    ch,
    'SELECT toUnixTimestamp(timestamp) AS t, hash FROM chain_blocks WHERE chain_id = {chain:UInt32} AND number = {n:UInt64} LIMIT 1',
    { chain: chainId, n },
  )
  return { time: Number(b?.t ?? 0), hash: b?.hash ?? '' }
}

/** The keys a batch's rows touch (the tables chainRows returns); a pool's liquidity touches both its tokens. */
export function touchedByBatch(tables: Array<[string, Array<Record<string, unknown>>]>, poolTokens: (pool: string) => string[]): ServingTouch {
  const tokens = new Set<string>()
  const launched = new Set<string>()
  const traders = new Set<string>()
  const tradedTokens = new Set<string>()
  let launchedFrom: number | undefined
  for (const [table, rows] of tables) {
    for (const r of rows) {
      if (table === 'swaps') {
        traders.add(r.trader as string)
        tradedTokens.add(r.token as string)
      }
      if (table === 'swaps' || table === 'erc20_transfers') tokens.add(r.token as string)
      else if (table === 'contract_creations') tokens.add(r.address as string)
      else if (table === 'pools') {
        // A new pool changes its tokens' pool lists (the structure's pools) before any liquidity moves.
        tokens.add(r.token0 as string)
        tokens.add(r.token1 as string)
      }
      else if (table === 'launches') {
        tokens.add(r.token as string)
        launched.add(r.token as string)
        // A launch without a time (none is formed so) would leave the next verdict unknown: read.
        const at = Number(r.launched_at)
        launchedFrom = Math.min(launchedFrom ?? Infinity, Number.isFinite(at) ? at : -Infinity)
      } else if (table === 'liquidity_events') {
        for (const t of poolTokens(r.pool as string)) tokens.add(t)
      }
    }
  }
  return { tokens, launched, traders, tradedTokens, launchedFrom }
}

/** The wallet-token pairs a batch's swap rows give legs (what its FIFO fold folds), from the rows. */
export function tradedPairsOf(tables: Array<[string, Array<Record<string, unknown>>]>): TradedPairs {
  const swaps = tables.find(([t]) => t === 'swaps')?.[1] ?? []
  return pairsOfSwaps(swaps as Array<{ trader: string; token: string; token_in: string; token_out: string }>)
}
