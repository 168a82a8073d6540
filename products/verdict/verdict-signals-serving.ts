import type { VerdictSignals } from './verdict.ts'
import { chainSignalsOf, measuredCallersOf, mentionAuthorsOf, scanSignalsOf, type CallerStanding, type ChainSignals, type ScanSignals } from './verdict-signals.ts'
import type { TokenRecord } from '../token/token-state.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'
import { createRefreshAhead, REFRESH_BATCH_KEYS } from '../../core/serving/refresh-ahead.ts'

/** What a part is for a token its read did not name (the reads answer every token they are given). */
const NO_CHAIN_SIGNALS: ChainSignals = { lp: null, insiderShareNow: null }
const NO_SCAN_SIGNALS: ScanSignals = { structure: null, smartHolders: null }
/** The standing of a token mentioned by no one. */
const NO_STANDING: ReadonlyMap<string, CallerStanding> = new Map()

/** Tokens whose verdict parts are kept, per part (least recently used dropped first). */
export const VERDICT_KEPT_TOKENS = 20_000

/** A token's verdict asked within this long is read again as soon as a change drops a part of it. */
export const VERDICT_REFRESH_AHEAD_MS = 120_000

interface VerdictSignalsServing {
  of(t: TokenRecord): Promise<VerdictSignals>
  /** What `of` answers, when memory holds every part of it now; else undefined (it never reads). */
  keptOf(t: TokenRecord): VerdictSignals | undefined
}

type Deps = Pick<ApiDeps, 'ch' | 'tokens' | 'social'>

/**
 * A token's verdict signals, kept per token in three parts, each dropped by exactly what changes
 * it, so a verdict is read from memory until its token changes:
 *  - the chain part (insiders' share, who can pull the liquidity) when a served batch names the
 *    token (its transfers, its pool's liquidity: serving_changes `token`);
 *  - the latest structure scan when the scans role stores one (serving_changes `scan`);
 *  - the accounts that mentioned the token when the social pipeline names it (caller_changes
 *    `mention`); their standing is the caller records the social serving keeps per caller.
 * A reorg or a rebuild drops every kept part. The pipeline reads the same parts at once
 * (products/verdict/verdict-signals.ts).
 */
function createVerdictSignalsServing(deps: Deps): VerdictSignalsServing {
  const { ch, tokens, social } = deps
  const chain = createKeyedCache<ChainSignals>(VERDICT_KEPT_TOKENS, 'verdict_chain')
  const scans = createKeyedCache<ScanSignals>(VERDICT_KEPT_TOKENS, 'verdict_scans')
  const authors = createKeyedCache<string[]>(VERDICT_KEPT_TOKENS, 'verdict_mention_authors')
  /** The signals last given per token, by the parts (and caller records) they were made of. */
  const given = new KeptByInputs<VerdictSignals>(VERDICT_KEPT_TOKENS)
  const ahead = createRefreshAhead({
    recentMs: VERDICT_REFRESH_AHEAD_MS,
    concurrency: 2,
    maxKeys: VERDICT_KEPT_TOKENS,
    batchKeys: REFRESH_BATCH_KEYS,
    // The tokens a batch dropped, each part read once for them all.
    load: async (keys) => {
      await Promise.all([tokens.sync(), social.sync()])
      const records = await tokens.tokens(keys)
      const found = keys.filter((k) => records.has(k))
      const [, , a] = await Promise.all([
        chain.getMany(found, (missing) => chainSignalsOf(ch, tokens.chainId, missing.map((k) => records.get(k)!)), NO_CHAIN_SIGNALS),
        scans.getMany(found, (missing) => scanSignalsOf(ch, tokens.chainId, missing), NO_SCAN_SIGNALS),
        authors.getMany(found, (missing) => mentionAuthorsOf(ch, missing), []),
      ])
      const everyAuthor = [...new Set([...a.values()].flat())]
      if (everyAuthor.length) await social.callers(everyAuthor)
    },
  })
  tokens.onChanges((changes) => {
    if (changes === null) {
      chain.clear()
      scans.clear()
      return
    }
    for (const c of changes) {
      if (c.kind === 'token') chain.delete(c.key)
      else if (c.kind === 'scan') scans.delete(c.key)
      else continue
      ahead.dropped(c.key)
    }
  })
  social.onChanges((changes) => {
    if (changes === null) return authors.clear()
    for (const c of changes) {
      if (c.kind !== 'mention') continue
      authors.delete(c.key)
      ahead.dropped(c.key)
    }
  })
  const one = <V>(read: (keys: string[]) => Promise<Map<string, V>>, key: string) => async () => (await read([key])).get(key)!
  /** The signals of a token's parts and its mention authors' records: one object per distinct set of them. */
  const signalsOf = (token: string, c: ChainSignals, s: ScanSignals, a: string[], standing: ReadonlyMap<string, CallerStanding>) =>
    given.get(token, [c, s, a, ...a.map((x) => standing.get(x))], () => ({ ...c, measuredCallers: measuredCallersOf(a, (x) => standing.get(x)), ...s }))
  const serving: VerdictSignalsServing = {
    async of(t) {
      ahead.asked(t.token)
      // Both change logs read first, so no part is older than what the token record says.
      await Promise.all([tokens.sync(), social.sync()])
      const [c, s, a] = await Promise.all([
        chain.get(t.token, one((keys) => chainSignalsOf(ch, tokens.chainId, keys.map(() => t)), t.token)),
        scans.get(t.token, one((keys) => scanSignalsOf(ch, tokens.chainId, keys), t.token)),
        authors.get(t.token, one((keys) => mentionAuthorsOf(ch, keys), t.token)),
      ])
      const standing = a.length ? await social.callers(a) : NO_STANDING
      // The same parts give the same signals object, so the answer made from it is kept too
      // (products/verdict/verdict-endpoint.ts).
      return signalsOf(t.token, c, s, a, standing)
    },
    keptOf(t) {
      ahead.asked(t.token)
      // As `of`, at the data both change logs are at now (the token record's own readiness is
      // its caller's: tokens.keptToken).
      if (!social.readyNow()) return undefined
      const c = chain.kept(t.token)
      const s = c && scans.kept(t.token)
      const a = s && authors.kept(t.token)
      if (!c || !s || !a) return undefined
      const standing = a.value.length ? social.keptCallers(a.value) : NO_STANDING
      return standing && signalsOf(t.token, c.value, s.value, a.value, standing)
    },
  }
  return serving
}

const kept = new WeakMap<Deps['tokens'], VerdictSignalsServing>()

/** The keeper of a token serving's verdict parts, made at its first use. */
function keeperOf(deps: Deps): VerdictSignalsServing {
  let k = kept.get(deps.tokens)
  if (!k) kept.set(deps.tokens, (k = createVerdictSignalsServing(deps)))
  return k
}

/** A token's verdict signals, from what is kept for it (one keeper per token serving). */
export function tokenVerdictSignals(deps: Deps, t: TokenRecord): Promise<VerdictSignals> {
  return keeperOf(deps).of(t)
}

/** A token's verdict signals when memory holds every part of them now, else undefined (nothing is read). */
export function keptTokenVerdictSignals(deps: Deps, t: TokenRecord): VerdictSignals | undefined {
  return keeperOf(deps).keptOf(t)
}
