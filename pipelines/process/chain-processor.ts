import { engineFor, engineStep } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { deferred } from '../../core/deferred.ts'
import { createConsumer, type Consumer, type SinkContext, type SinkItem } from '../consumer/create-consumer.ts'
import { ChainBlock } from '../records/chain-block.ts'
import { createClickHouseSink, type SinkHooks } from '../sink/clickhouse-sink.ts'
import { chainTopic } from '../../core/bus/topics.ts'
import { batchToken, createBatchJournal, type PlannedBatch } from './batch-journal.ts'
import { chainRows } from './chain-rows.ts'
import { recoverRollbacks, rollbackChain, type RollbackResult } from './chain-rollback.ts'
import { createOwedRollbacks, rollbacksComplete, unionOfOwed, type OwedRefresh } from './rollback-owed.ts'
import { createChainIdStep } from './chain-id-step.ts'
import { loadChainState, type ChainState } from './chain-state.ts'
import type { FollowedContracts } from './pool-registry.ts'
import { chainTotalsMissing, CountedBefore, recountChainTotals } from '../../products/token/chain-totals.ts'
import type { IdleWatch } from '../../products/token/idle-deployers.ts'
import { blockAt, catchUpServingState, foldBatch, refreshServingState, touchedByBatch, tradedPairsOf, type RefreshResult, type RefreshScope, type ServingTouch } from './serving-refresh.ts'
import { pushOfBatch } from './batch-push.ts'
import type { PushedBatch } from '../../core/records/serving-changes.ts'
import { refreshTokenReal } from '../../products/token/token-real-refresh.ts'
import { TokenFacts } from '../../products/token/token-facts.ts'
import { createLaunchOutcomes } from '../../products/verdict/launch-verdicts.ts'
import { catchUpFifo } from '../../products/wallet/fifo-refresh.ts'

export interface ChainProcessorDeps {
  ch: ClickHouseClient
  bus: Bus
  logger: Logger
  metrics: Metrics
  chainId: number
  /** Prefix of topic and group names (BUS_NAMESPACE). */
  namespace?: string
  follow: FollowedContracts
  /** Blocks per insert batch (a batch is one insert per table). */
  maxBatchBlocks?: number
  /** After a batch that did not fill, wait this long before the next (batch by time); 0 or absent: no wait. */
  flushEveryMs?: number
  /** After a batch that did not fill (and its pause): what the next batch waits for too (createConsumer's flushAfter). */
  flushAfter?: () => Promise<void>
  /** Tokens whose frozen facts (creation, launch, real block) the processor keeps (SERVING_CACHE_ENTRIES). */
  tokenFactsEntries?: number
  /**
   * Called after each batch once its serving state is refreshed: the new watermark and the
   * refresh's seq; with `pushBatches`, a batch's push too (when it has one).
   */
  onAdvance?(block: number, seq: number, served: ServedBatch, pushed?: PushedBatch): void
  /** Hand each served batch to onAdvance as a push (pipelines/process/batch-push.ts): its followers are on this host. */
  pushBatches?: boolean
  sinkHooks?: SinkHooks
}

/** Tokens whose frozen facts a processor keeps unless told (about 1 KB each). */
const DEFAULT_TOKEN_FACTS = 100_000

/** What a served batch (or a rollback's refresh) was, for those that follow the chain in-process. */
export interface ServedBatch {
  /** The chain time of the block it is served through. */
  chainTime: number
  /** Whether a token turned real in it. */
  turnedReal: boolean
  /** Whether it is a rollback's refresh (blocks were taken away). */
  rolledBack: boolean
}

export interface ChainProcessor {
  start(): Promise<void>
  /** Stop consuming; the running batch finishes and is committed first. */
  stop(): Promise<void>
  /** Last block fully ingested, or -1 before the first. */
  watermark(): number
  lag(): Promise<number>
}

/**
 * The chain processor: consumes `chain.<id>.logs` through the consumer framework (parse, chain
 * id, then the block writer below), and inserts each batch of blocks with an exactly-once effect:
 *  - blocks at or below the watermark (the last block in `chain_blocks`) are already in, and
 *    are skipped whatever batch they arrive in;
 *  - a batch is journaled (block range + token) before its first insert; after
 *    a crash the journaled batch is re-formed exactly and re-inserted with the same token, so the
 *    tables it had reached deduplicate it (materialized views too) and the others receive it;
 *    of a run of one-block batches (live blocks) only the first is journaled: after a start
 *    while a run was on, the first batch is one block, which re-forms one cut short exactly;
 *  - bus offsets are committed only after the inserts are acknowledged.
 */
export function createChainProcessor(deps: ChainProcessorDeps): ChainProcessor {
  const { logger, metrics, chainId } = deps
  const consumer = `chain-${chainId}`
  // Every statement of this processor counts under its consumer, by step (the framework's, then
  // the parts named below: insert, refresh and refresh's own).
  const ch = engineFor(deps.ch, consumer)
  const refreshing = engineStep(ch, 'refresh')
  const maxBatchBlocks = deps.maxBatchBlocks ?? 500
  const journal = createBatchJournal(ch, consumer)
  const sink = createClickHouseSink(engineStep(ch, 'insert'), metrics, deps.sinkHooks)
  let state: ChainState
  let pending: PlannedBatch | null = null
  /**
   * Runs of one-block batches (live blocks) are journaled once, at their first batch, so the
   * journal's statement (first on a batch's path) is off a live block's path. Whether the last
   * batch journaled is of one block (a run is on, its later batches not journaled).
   */
  let oneBlockRun = false
  /**
   * Whether the next batch must hold one block: the first after a start while a run was on. Its
   * last batch may have been cut short unjournaled; re-formed as that one block again, it gets the
   * same token, and the tables it had reached deduplicate it.
   */
  let oneBlockNext = false
  let running: Consumer | undefined
  let rowsWindow: Array<[number, number]> = []
  const outcomes = createLaunchOutcomes(engineStep(refreshing, 'outcomes'), chainId)
  const pushing = engineStep(refreshing, 'push')
  /** The chain time of the last batch this processor served (unknown after a start or a failed refresh). */
  let servedChainTime: number | undefined
  /** The same, kept for svc_served_block_age_seconds (once a batch was served since the start). */
  let servedBlockTime: number | undefined
  /** When the next token can turn idle, as the last batch served left it (products/token/idle-deployers.ts). */
  let idleWatch: IdleWatch | undefined
  /** The traders and tokens this processor's batches counted (a rollback recounts: forgotten then). */
  const counted = new CountedBefore()
  /** The frozen facts of the tokens its batches refreshed (a rollback may take them away: cleared then). */
  const facts = new TokenFacts(deps.tokenFactsEntries ?? DEFAULT_TOKEN_FACTS)

  /** Tokens traded in blocks [from, to]: whose "real" status a restart must re-check. */
  async function tokensTradedIn(from: number, to: number): Promise<string[]> {
    const rows = await queryRows<{ token: string }>(
      ch,
      'SELECT DISTINCT token FROM swaps WHERE chain_id = {chain:UInt32} AND block_number BETWEEN {from:UInt64} AND {to:UInt64}',
      { chain: chainId, from, to },
    )
    return rows.map((r) => r.token)
  }

  /** The seq of the last serving refresh this processor wrote (what its next batch's push follows); unknown before its first. */
  let lastSeq: number | undefined

  /** Refresh the serving state (tokens, deployers, change log) of what a batch or a rollback touched. */
  async function refreshServing(touch: ServingTouch, scope: RefreshScope, to: ChainBlock | number, blocksIn?: Promise<unknown>, namedSince?: number): Promise<{ seq: number; served: ServedBatch; named: RefreshResult['named']; others: RefreshResult['others'] }> {
    const started = performance.now()
    const head = typeof to === 'number' ? { number: to, ...(await blockAt(refreshing, chainId, to)) } : { number: to.number, time: to.timestamp, hash: to.hash.toLowerCase() }
    // A rollback, and a refresh after a failed one, read what was served last from serving_changes.
    const served = scope.kind === 'batch' ? servedChainTime : undefined
    const watch = scope.kind === 'batch' ? idleWatch : undefined
    servedChainTime = undefined
    idleWatch = undefined
    // The +15 min verdicts and forward marks that fell due by this served block (issue 13): they
    // read the token and deployer records, so what they take waits until those are written.
    const afterRecords = (recordsWritten: Promise<void>) => outcomes.run({ block: head.number, chainTime: head.time }, { launchedFrom: touch.launchedFrom }, recordsWritten)
    const r = await refreshServingState(refreshing, chainId, touch, { watermark: head.number, chainTime: head.time, scope, watermarkHash: head.hash, servedChainTime: served, idleWatch: watch, counted, blocksIn, facts, afterRecords, namedSince })
    servedChainTime = head.time
    idleWatch = r.idleWatch
    servedBlockTime = head.time
    metrics.servingRefresh.observe({ chain: String(chainId) }, (performance.now() - started) / 1000)
    logger.debug({ consumer, ...r, ms: Math.round(performance.now() - started) }, 'serving state refreshed')
    lastSeq = r.seq
    return { seq: r.seq, served: { chainTime: head.time, turnedReal: r.turnedReal > 0, rolledBack: scope.kind === 'rollback' }, named: r.named, others: r.others }
  }

  /**
   * The serving refresh a rollback owes until it is done. By then the orphaned rows are deleted:
   * after a fault in it, the retried batch forms from the new chain, which may never touch the
   * tokens the orphaned blocks did, so what the rollback touched is kept until refreshed, here
   * and in `reorg_refresh_owed` (a process that dies before the refresh owes it on start).
   */
  const owedRollbacks = createOwedRollbacks(ch, chainId)
  let owedRollback: OwedRefresh | undefined
  /** Whether the rollback owing it completed (a failed one is detected and run again first). */
  let owedAfterRollback = false

  /** A block at or below the watermark with a hash we did not ingest: the chain reorganized. */
  async function rollback(block: ChainBlock): Promise<void> {
    const old = state.hashOf(block.number) ?? ''
    logger.warn({ consumer, fromBlock: block.number, old, new: block.hash }, 'reorg: rolling back orphaned blocks')
    // Owed from before the rollback deletes anything (a rollback run again after a fault finds
    // the rows gone): what each run touched adds up until the refresh is done.
    owedAfterRollback = false
    // The rollback recounts the totals: a trader whose only swaps it removes is no longer counted.
    counted.forget()
    // It may remove a creation, a launch or a real block.
    facts.clear()
    const orphan = { block: block.number, hash: old }
    const owe = (r: RollbackResult) => {
      const owed = { ...r, orphans: [orphan] }
      owedRollback = owedRollback ? unionOfOwed(owedRollback, owed) : owed
    }
    const done = await rollbackChain(ch, chainId, block.number, { old, new: block.hash.toLowerCase() }, async (touched) => {
      await owedRollbacks.owe(touched, orphan)
      owe(touched)
    })
    owe(done)
    state = await loadChainState(ch, chainId, deps.follow)
    owedAfterRollback = true
    await refreshAfterRollback()
  }

  /** The serving refresh of the rollback owed, if one is (every batch settles it first). */
  async function refreshAfterRollback(): Promise<void> {
    if (!owedRollback || !owedAfterRollback) return
    const { tokens, touched, wallets } = owedRollback
    await refreshTokenReal(ch, chainId, tokens)
    // Totals are recounted by the rollback; nothing is counted here.
    const { seq, served } = await refreshServing({ tokens: new Set(touched), launched: new Set(), traders: new Set(), tradedTokens: new Set(), wallets: new Set(wallets) }, { kind: 'rollback' }, state.watermark)
    await owedRollbacks.settle()
    owedRollback = undefined
    deps.onAdvance?.(state.watermark, seq, served)
  }

  /**
   * The sink of the chain consumer: forms the batch (watermark skip, reorg rollback, re-forming a
   * journaled batch), journals it, inserts it with the batch journal's token (it names the blocks,
   * not the offsets, so it survives a re-cut batch), then the post-insert hooks. Answers the
   * offset through which the blocks are done; null while waiting for the rest of a journaled batch.
   */
  async function writeBlocks(parsed: Array<SinkItem<ChainBlock>>, ctx: SinkContext): Promise<{ through: string | null }> {
    const started = performance.now()
    await refreshAfterRollback()
    let selected: Array<SinkItem<ChainBlock>>
    let token: string
    let doneThrough = parsed[parsed.length - 1]!.message.offset
    if (pending) {
      // Re-form the journaled batch exactly: same blocks, same token.
      const p = pending
      const end = parsed.findIndex((x) => x.value.number === p.lastBlock)
      if (end < 0) {
        logger.debug({ consumer }, `waiting for block ${p.lastBlock} to re-form batch ${p.token}`)
        return { through: null }
      }
      const lastBlock = parsed[end]!.value
      if (batchToken(consumer, state.epoch, p.firstBlock, p.lastBlock, lastBlock.hash) !== p.token) {
        // The chain under that range changed (a reorg, or another simulator seed): the journaled
        // token no longer names these rows, so reusing it would drop them as duplicates.
        logger.warn({ consumer, token: p.token }, 'journaled batch no longer matches the chain; forming a new batch')
        pending = null
        return writeBlocks(parsed, ctx)
      }
      selected = parsed.slice(0, end + 1).filter((x) => x.value.number >= p.firstBlock && x.value.number > state.watermark)
      doneThrough = parsed[end]!.message.offset
      token = p.token
      logger.info({ consumer, token, first: p.firstBlock, last: p.lastBlock }, 're-inserting the journaled batch after a restart')
    } else {
      selected = []
      let last = state.watermark
      for (const x of parsed) {
        const n = x.value.number
        if (n > last) {
          if (selected.length >= (oneBlockNext ? 1 : maxBatchBlocks)) break
          selected.push(x)
          last = n
          continue
        }
        // At or below what we have: a redelivery when the hash is the one we ingested,
        // otherwise a reorg, handled at the start of a batch of its own.
        const known = state.hashOf(n)
        if (known === undefined || known === x.value.hash.toLowerCase()) continue
        if (selected.length > 0) break
        await rollback(x.value)
        return writeBlocks(parsed, ctx)
      }
      const lastSelected = selected[selected.length - 1]
      if (lastSelected && lastSelected !== parsed[parsed.length - 1]) doneThrough = lastSelected.message.offset
      const first = selected[0]?.value
      const lastB = lastSelected?.value
      token = first && lastB ? batchToken(consumer, state.epoch, first.number, lastB.number, lastB.hash) : ''
      if (first && lastB) {
        const oneBlock = first.number === lastB.number
        if (!oneBlock || !oneBlockRun) await journal.record({ firstBlock: first.number, lastBlock: lastB.number, token })
        oneBlockRun = oneBlock
      }
    }
    pending = null

    if (selected.length > 0) {
      const blocks = selected.map((x) => x.value)
      const { tables, rejected, commit } = await chainRows(chainId, blocks, state)
      let rows: number
      let seq: number
      let served: ServedBatch
      let named: RefreshResult['named']
      let pushed: PushedBatch | null = null
      let launched: ReadonlySet<string> = new Set()
      const fromBlock = blocks[0]!.number
      const through = blocks[blocks.length - 1]!
      const tradedPairs = tradedPairsOf(tables)
      // The FIFO fold reads only what the swaps' insert fills: it starts once that is in, beside the
      // batch's other inserts (the longest part of a live batch's refresh, off its critical path).
      let folding: Promise<Set<string>> | undefined
      // The refresh reads what the raw tables' inserts fill, not the watermark table (chain_blocks,
      // inserted last): it starts once the others are in, beside that insert, and waits for it
      // only where it reads it or publishes the batch (serving-refresh.ts `blocksIn`). A fault
      // after it began is retried as a whole batch: every refresh write is idempotent.
      let refreshed: ReturnType<typeof refreshServing> | undefined
      const blocksIn = deferred()
      try {
        rows = await sink.insertBatch(token, tables, {
          onInserted: (table) => {
            if (table !== 'swaps') return
            folding = foldBatch(refreshing, chainId, fromBlock, through.number, tradedPairs)
            // Awaited by the refresh; marked handled now, in case another insert fails first.
            folding.catch(() => {})
          },
          onHeadInserted: () => {
            // A pool created in this batch is not in state.pools until commit(): its rows name its tokens.
            const touch = { ...touchedByBatch(tables, (pool) => { const p = state.pools.get(pool); return p ? [p.token0, p.token1] : [] }), tradedPairs, folding }
            launched = touch.launched
            refreshed = refreshServing(touch, { kind: 'batch', fromBlock }, through, blocksIn.promise, deps.pushBatches ? lastSeq : undefined)
            refreshed.catch(() => {})
          },
        })
        blocksIn.resolve()
        commit()
        const after = lastSeq
        let others: RefreshResult['others']
        ;({ seq, served, named, others } = await refreshed!)
        // Read back for its followers (a batch with launches only), before they are told of it.
        pushed = deps.pushBatches && after !== undefined && others !== undefined ? await pushOfBatch(pushing, chainId, { after, seq, watermark: through.number, chainTime: served.chainTime }, named, launched, others) : null
      } catch (err) {
        // The watermark's insert failed (or one before it): a refresh running beside it stops at
        // it; settled before the retry, so two refreshes of the batch never overlap.
        blocksIn.reject(err)
        await refreshed?.catch(() => {})
        // The consumer retries this batch (an infrastructure fault is retried until it clears):
        // chainRows marked the batch's launches as seen, so forget them, or the retry would form
        // the batch without its launch rows (and its refresh without their launches). Rows that
        // did land are absorbed by the batch token.
        for (const [, launch] of tables.filter(([t]) => t === 'launches')) for (const r of launch) state.launched.delete(r.token as string)
        throw err
      }
      // The watermark moves once the batch is served: whoever waits for it sees its answers.
      state.advance(blocks)
      oneBlockNext = false
      for (const r of rejected) {
        const from = selected.find((x) => x.value.number === r.block)!
        ctx.deadLetter({ message: from.message, value: JSON.stringify(r), reason: `malformed_log: ${r.reason}` })
      }
      metrics.watermark.set({ chain: String(chainId) }, state.watermark)
      rowsWindow.push([Date.now(), rows])
      deps.onAdvance?.(state.watermark, seq, served, pushed ?? undefined)
      logger.info({ consumer, blocks: blocks.length, rows, through: state.watermark, ms: Math.round(performance.now() - started) }, 'batch inserted')
    }
    return { through: doneThrough }
  }

  metrics.servedBlockAge.onCollect(() => {
    if (servedBlockTime !== undefined) metrics.servedBlockAge.set({ chain: String(chainId) }, Math.max(0, Date.now() / 1000 - servedBlockTime))
  })
  metrics.ingestRowsPerSecond.onCollect(() => {
    const cutoff = Date.now() - 10_000
    rowsWindow = rowsWindow.filter(([t]) => t >= cutoff)
    metrics.ingestRowsPerSecond.set({ consumer }, rowsWindow.reduce((s, [, n]) => s + n, 0) / 10)
  })

  return {
    async start() {
      const recovered = await recoverRollbacks(ch, chainId)
      state = await loadChainState(ch, chainId, deps.follow)
      // On an empty chain every trader this processor counts is one it learns: none needs a read.
      if (state.watermark < 0) counted.startEmpty()
      // A batch journaled but not completed is redelivered by a durable bus, or regenerated from
      // the watermark by the deterministic simulator on the in-process bus.
      pending = await journal.last()
      // A re-formed journaled batch, or the first batch of a run that was on, starts the run again.
      oneBlockRun = oneBlockNext = pending !== null && pending.firstBlock === pending.lastBlock
      if (pending && pending.lastBlock <= state.watermark) {
        // Inserted, but the process may have died before the batch's real-token refresh.
        await refreshTokenReal(ch, chainId, [...recovered, ...(await tokensTradedIn(pending.firstBlock, pending.lastBlock))])
        pending = null
      }
      if (pending) logger.warn({ consumer, pending }, 'a journaled batch was not completed; it will be re-formed exactly')
      if (await chainTotalsMissing(ch, chainId)) await recountChainTotals(ch, chainId)
      // A data dir whose swaps were never folded into FIFO state (from before migration 021).
      const folded = await catchUpFifo(ch, chainId)
      if (folded) logger.info({ consumer, pairs: folded }, 'FIFO state built for every wallet-token')
      // Batches inserted before a crash (or before serving state existed) are refreshed now.
      const caughtUp = await catchUpServingState(ch, chainId, state.watermark, {
        onPage: (tokens) => logger.info({ consumer, tokens }, 'serving state: building'),
      })
      if (caughtUp) {
        logger.info({ consumer, ...caughtUp }, 'serving state caught up with the watermark')
        lastSeq = caughtUp.seq
        deps.onAdvance?.(state.watermark, caughtUp.seq, { chainTime: caughtUp.chainTime, turnedReal: caughtUp.turnedReal > 0, rolledBack: false })
      }
      // A rollback's refresh a dead process still owed: now if the rollback completed, otherwise
      // once the reorg, detected again, has been rolled back.
      owedRollback = await owedRollbacks.owed()
      if (owedRollback) {
        owedAfterRollback = rollbacksComplete(owedRollback, state.hashOf)
        logger.warn({ consumer, tokens: owedRollback.touched.length, wallets: owedRollback.wallets.length, complete: owedAfterRollback }, 'a rollback\'s serving refresh is owed from before the restart')
        await refreshAfterRollback()
      }
      metrics.watermark.set({ chain: String(chainId) }, state.watermark)
      running = createConsumer({
        name: consumer,
        bus: deps.bus,
        logger,
        metrics,
        namespace: deps.namespace,
        topic: chainTopic(chainId),
        schema: ChainBlock,
        steps: [createChainIdStep(chainId)],
        sink: { name: 'chain-writer', write: writeBlocks },
        engine: ch,
        // One message per block on the chain topic: the lag in messages is the lag in blocks.
        onLag: (messages) => metrics.ingestLagBlocks.set({ chain: String(chainId) }, messages),
        maxBatchSize: Math.max(maxBatchBlocks, pending ? pending.lastBlock - pending.firstBlock + 1 : 0) * 2,
        flushEveryMs: deps.flushEveryMs,
        flushAfter: deps.flushAfter,
      })
      await running.start()
      logger.info({ consumer, watermark: state.watermark, pools: state.pools.size() }, 'chain processor started')
    },
    async stop() {
      await running?.stop()
    },
    watermark: () => state?.watermark ?? -1,
    lag: async () => (running ? running.lag() : 0),
  }
}
