import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { structureReport, structureReports, structureWindow, windowFields, type StructureAnswer } from './structure-report.ts'
import { countCacheLookup } from '../../core/metrics.ts'
import { renderOnce } from '../../core/serving/rendered-json.ts'
import { oncePerVersion } from '../../core/serving/once-per-version.ts'
import { createRefreshAhead } from '../../core/serving/refresh-ahead.ts'
import { createBoundedCache } from '../../core/serving/bounded-cache.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import { createKeyBatcher } from '../../core/serving/key-batcher.ts'
import { transfersBeforeOf, type TokenTransfer } from './holder-balances.ts'
import { createServingCache, type ServingCache } from '../../core/serving/serving-cache.ts'
import type { TokenServing } from '../token/token-serving.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'

/** The window a structure answer is measured in (its end block and its 24 h baseline). */
type StructureWindow = Awaited<ReturnType<typeof structureWindow>>

/**
 * Answers kept per process: an answer lists up to 1,050 wallets (a few hundred kB), so they get
 * a bound of their own instead of entries in the shared cache, which holds tens of thousands of
 * small answers.
 */
export const STRUCTURE_CACHE_ENTRIES = 256

/** A token's structure asked within this long is computed again as soon as a change drops it. */
export const STRUCTURE_REFRESH_AHEAD_MS = 120_000

/**
 * Tokens whose answers are computed again together: a batch that drops many answers costs a
 * dozen statements per this many tokens, not per token (on the default world 50 tokens took
 * 460-530 ms of engine CPU together, 6.8-7.3 s one by one; 200 together 650-1,000 ms), and no
 * statement grows past this many tokens' key ranges.
 */
export const STRUCTURE_REFRESH_BATCH_TOKENS = 200

type Deps = { ch: ClickHouseClient; watermarks: Watermarks; tokens: TokenServing }

interface Kept {
  answer: StructureAnswer
  /** Whether the window held 24 h when it was computed (the verdict reads it). */
  full: boolean
  /** The wallets the answer lists: their FIFO records decide the `smart` label. */
  listed: string[]
  /** The first block of its window with a balance change of the token: once the window starts there, it is stale. */
  firstChange: number | null
  /** The answer as last given, spliced with the window of the block it was given at. */
  given?: StructureAnswer
}

/**
 * /structure/{token} at the served block, kept per token and dropped only by what changes it
 * (DESIGN §6; docs/architecture.md): a served batch that names the token (its transfers, swaps,
 * pools: serving_changes `token`); the window's start reaching the first block in it
 * with a balance change of the token (read with the answer: a transfer leaving the window); a wallet the answer
 * lists whose FIFO record changed (`wallet`: its `smart` label); a reorg or rebuild (everything).
 * Between those, the window slides over blocks without the token: holders, balances at both ends,
 * the diff, labels and verdict stay what they were, and only the window's fields are read anew
 * (once per batch for every token). So a request is a lookup plus that splice, and an answer is
 * computed at most once per change of its token.
 */
function createKeptStructure(deps: Deps, maxEntries: number) {
  const { tokens } = deps
  const chainId = tokens.chainId
  const kept = new Map<string, Kept>()
  const byWallet = new Map<string, Set<string>>()
  // A computation that started before its token changed is answered but not kept (its answer is
  // the token's previous one, below).
  const generation = new Map<string, number>()
  // Reorgs and rebuilds seen: a computation that started before one gives no previous answer.
  let rewinds = 0
  const loading = new Map<string, Promise<Kept>>()
  // The answer a token had before a change dropped it, given (with the block it states) while
  // its new one is computed; gone once that is kept, and all at a reorg (their blocks may be gone).
  const previous = createBoundedCache<StructureAnswer>(maxEntries, Number.POSITIVE_INFINITY)
  /** The last window read, at hand without a promise for the kept answers at its block. */
  let windowRead: { block: number; window: StructureWindow } | undefined
  const windowAt = oncePerVersion(async (block) => {
    const window = await structureWindow(deps.ch, chainId, Number(block))
    windowRead = { block: Number(block), window }
    return window
  })

  function drop(token: string): void {
    generation.set(token, (generation.get(token) ?? 0) + 1)
    loading.delete(token)
    const k = kept.get(token)
    if (!k) return
    kept.delete(token)
    for (const w of k.listed) {
      const set = byWallet.get(w)
      set?.delete(token)
      if (set?.size === 0) byWallet.delete(w)
    }
  }

  function keep(token: string, k: Kept): void {
    kept.set(token, k)
    previous.delete(token)
    for (const w of k.listed) {
      let set = byWallet.get(w)
      if (!set) byWallet.set(w, (set = new Set()))
      set.add(token)
    }
    if (kept.size > maxEntries) drop(kept.keys().next().value!)
  }

  // One computation at a time in the background, for the tokens one change dropped together: the
  // engine's time goes to requests first.
  const ahead = createRefreshAhead({
    recentMs: STRUCTURE_REFRESH_AHEAD_MS,
    concurrency: 1,
    batchKeys: STRUCTURE_REFRESH_BATCH_TOKENS,
    maxKeys: maxEntries,
    load: async (keys) => {
      await tokens.sync()
      const block = tokens.measuredThrough()
      if (block === null) return
      const window = await windowOf(block)
      const stale = keys.filter((token) => {
        const k = kept.get(token)
        return !k || !holds(k, window)
      })
      await Promise.allSettled(load(stale, block))
    },
  })
  const dropChanged = (token: string) => {
    const k = kept.get(token)
    if (k) {
      previous.set(token, k.given ?? k.answer)
    }
    const had = k !== undefined || loading.has(token)
    drop(token)
    if (had) ahead.dropped(token)
  }

  tokens.onChanges((changes) => {
    if (changes === null) {
      for (const token of [...kept.keys(), ...loading.keys()]) dropChanged(token)
      rewinds++
      previous.clear()
      preSwap.clear()
      return
    }
    for (const c of changes) {
      if (c.kind === 'token') dropChanged(c.key)
      else if (c.kind === 'wallet') for (const token of [...(byWallet.get(c.key) ?? [])]) dropChanged(token)
    }
    // The new served block's window read now, before the first request at that block asks for it
    // (every answer given at the block splices it in), while answers are kept to give.
    const served = tokens.measuredThrough()
    if (kept.size > 0 && served !== null) windowOf(served).catch(() => {})
  })

  /** The window ending at the served block: read once per batch, whatever the number of tokens. */
  const windowOf = (block: number) => windowAt(String(block))

  /** The kept answer with the window of `window`'s block, made once per block it is given at. */
  function given(k: Kept, window: StructureWindow): StructureAnswer {
    if (k.given?.data.measured_through_block !== window.to.number) {
      // Given to every caller until the next block: its JSON text is made once.
      k.given = { ...k.answer, data: renderOnce({ ...k.answer.data, ...windowFields(window) }) }
    }
    return k.given
  }

  // A token's transfers before a block are the same at every later served block (until a reorg):
  // its off-market transfers before its first swap are read once, not at every computation (the
  // read is FINAL over the token's transfers: a sixth of a computation's engine time).
  const preSwap = createKeyedCache<TokenTransfer[]>(maxEntries, 'structure_pre_swap')
  const keyOf = (token: string, before: number) => `${token}@${before}`
  const keptTransfersBefore: typeof transfersBeforeOf = async (ch, chain, before) => {
    const got = await preSwap.getMany(
      [...before].map(([token, b]) => keyOf(token, b)),
      async (missing) => {
        const asked = new Map(missing.map((key) => [key.slice(0, key.indexOf('@')), Number(key.slice(key.indexOf('@') + 1))]))
        const read = await transfersBeforeOf(ch, chain, asked)
        return new Map([...asked].map(([token, b]) => [keyOf(token, b), read.get(token)!]))
      },
      [],
    )
    return new Map([...before].map(([token, b]) => [token, got.get(keyOf(token, b))!]))
  }

  /** The answers of `tokens` at `block`, computed together. */
  async function computeAll(list: string[], block: number): Promise<Map<string, Kept>> {
    const [computed, window] = await Promise.all([structureReports(deps.ch, chainId, list, block, { transfersBefore: keptTransfersBefore }), windowOf(block)])
    const out = new Map<string, Kept>()
    for (const [token, { answer, firstChange }] of computed) {
      const listed = [...new Set([...answer.data.holders.top.map((h) => h.address), ...answer.data.diff.wallets.map((w) => w.address)])]
      out.set(token, { answer, full: window.full, listed, firstChange })
    }
    return out
  }

  /**
   * Starts computing the answers of those of `list` not already being computed, together; each
   * is kept unless a change dropped its token meanwhile. Returns the computations `list` waits on.
   */
  function load(list: string[], block: number): Array<Promise<Kept>> {
    const todo = list.filter((token) => !loading.has(token))
    if (todo.length) {
      const all = computeAll(todo, block)
      const rewindsAtStart = rewinds
      for (const token of todo) {
        const gen = generation.get(token) ?? 0
        const pending = all.then((m) => m.get(token)!)
        loading.set(token, pending)
        pending
          .then((k) => {
            if ((generation.get(token) ?? 0) === gen) keep(token, k)
            // The token changed while this was computed: it is the token's answer at `block`,
            // given (stating that block) while the new one is computed, as a dropped one is.
            else if (rewinds === rewindsAtStart && !kept.has(token) && (previous.get(token)?.data.measured_through_block ?? -1) < block) previous.set(token, k.answer)
          })
          .catch(() => {})
          .finally(() => {
            if (loading.get(token) === pending) loading.delete(token)
          })
      }
    }
    return list.map((token) => loading.get(token)!)
  }

  // Misses at one block asked while a computation of misses runs wait for it and are then computed
  // together (core/serving/key-batcher.ts): after a restart every token is a miss, and computed
  // one by one they queued behind one another in the engine. A lone miss starts at once.
  const missedAt = createKeyBatcher<PromiseSettledResult<Kept>, number>(
    async (list, block) => {
      const settled = await Promise.allSettled(load(list, block))
      return new Map(list.map((token, i) => [token, settled[i]!]))
    },
    { maxKeys: STRUCTURE_REFRESH_BATCH_TOKENS, absent: { status: 'rejected', reason: new Error('structure not computed') } },
  )
  async function missed(token: string, block: number): Promise<Kept> {
    const computed = await missedAt(token, block)
    if (computed.status === 'rejected') throw computed.reason
    return computed.value
  }

  /**
   * Whether a kept answer holds in `window`: its window was as full, and the window's start has
   * not reached the first block whose change it counted (a transfer leaving the window changes
   * the diff although no batch touched the token).
   */
  const holds = (k: Kept, window: StructureWindow) =>
    k.full === window.full && (k.firstChange === null || window.from.number < k.firstChange)

  const keeper = {
    /** The answer at `block` (the served one); `asked` when a caller asked (not a refresh ahead). */
    async at(token: string, block: number, asked = true): Promise<StructureAnswer> {
      if (asked) ahead.asked(token)
      const window = await windowOf(block)
      const found = kept.get(token)
      const held = found && holds(found, window) ? found : undefined
      if (found && !held) dropChanged(token)
      countCacheLookup('structure_kept', held !== undefined)
      if (held) {
        // Most recently used last.
        kept.delete(token)
        kept.set(token, held)
        return given(held, window)
      }
      return given(await (loading.get(token) ?? missed(token, block)), window)
    },

    /**
     * The newest answer without waiting on the engine where one can be given: the answer at the
     * served block when it is kept; while a change's new answer is computed, the one its token had
     * before, which states the block it was measured through. Only a token not answered before
     * (or after a reorg) waits for its computation.
     */
    async latest(token: string, block: number): Promise<StructureAnswer> {
      return fromMemory(token, await windowOf(block)) ?? keeper.at(token, block)
    },

    /** latest() when it needs no promise: the window of `block` read, and an answer to give. */
    keptLatest(token: string, block: number): StructureAnswer | undefined {
      return windowRead?.block === block ? fromMemory(token, windowRead.window) : undefined
    },
  }

  /** latest()'s answer from memory in `window`, or undefined when the token must wait for its computation. */
  function fromMemory(token: string, window: StructureWindow): StructureAnswer | undefined {
    // An answer the sliding window made stale goes the way of a changed one: given as before while its new one is computed.
    const stale = kept.get(token)
    if (stale && !holds(stale, window)) dropChanged(token)
    const held = kept.get(token)
    if (held) {
      ahead.asked(token)
      countCacheLookup('structure_kept', true)
      // Most recently used last.
      kept.delete(token)
      kept.set(token, held)
      return given(held, window)
    }
    const before = previous.get(token)
    if (!before) return undefined
    ahead.asked(token)
    countCacheLookup('structure_kept', true)
    // Queues the new answer's computation with the other tokens a change dropped (or joins
    // it); this caller does not wait for it.
    if (!loading.has(token)) ahead.dropped(token)
    return before
  }
  return keeper
}

const keptStructures = new WeakMap<TokenServing, ReturnType<typeof createKeptStructure>>()
const pastAnswers = new WeakMap<Watermarks, ServingCache>()

/**
 * /structure/{token} answers: at the served block from what is kept per token (above); at an
 * earlier window end (`as_of_block`), cached per (token, block) while the chain's batch watermark
 * stands (their labels read current records), from keyed reads only (products/structure/structure-report.ts).
 */
function keptStructure(deps: Deps) {
  let k = keptStructures.get(deps.tokens)
  if (!k) keptStructures.set(deps.tokens, (k = createKeptStructure(deps, STRUCTURE_CACHE_ENTRIES)))
  return k
}

/**
 * /structure/{token} without `as_of_block` (`served`: the block the token serving was synced
 * to): the kept answer at that block, or, while a change's new answer is computed, the token's
 * answer before it (stating its own block).
 */
export function latestStructureAnswer(deps: Deps, token: string, served: number): Promise<StructureAnswer> {
  return keptStructure(deps).latest(token.toLowerCase(), served)
}

/** latestStructureAnswer() when memory holds it (the window of `served` read, the answer kept or given before), else undefined. */
export function keptLatestStructureAnswer(deps: Deps, token: string, served: number): StructureAnswer | undefined {
  return keptStructure(deps).keptLatest(token.toLowerCase(), served)
}

export async function structureAnswer(deps: Deps, chainId: number, token: string, toBlock: number): Promise<StructureAnswer> {
  // Changes up to the served batch are applied before the kept answer is read.
  await deps.tokens.sync()
  if (chainId === deps.tokens.chainId && toBlock === deps.tokens.measuredThrough()) {
    return keptStructure(deps).at(token.toLowerCase(), toBlock)
  }
  let cache = pastAnswers.get(deps.watermarks)
  if (!cache) pastAnswers.set(deps.watermarks, (cache = createServingCache({ maxEntries: STRUCTURE_CACHE_ENTRIES })))
  return cache.get(`structure:${chainId}:${token}:${toBlock}`, deps.watermarks.version(chainId), () => structureReport(deps.ch, chainId, token, toBlock))
}
