import { LruMap } from '../../core/serving/lru-map.ts'
import type { TokenSourceRow } from './token-state-inputs.ts'

/** The sources of token-frozen-sources.sql kept as read (the distribution is kept as `kept`; not the pool's liquidity). */
const FACTS: ReadonlySet<TokenSourceRow['source']> = new Set(['created', 'launched', 'real'])

/** One token's frozen facts as last read: its rows of those sources (a source it lacks: a fact it does not have). */
export interface KeptFacts {
  rows: TokenSourceRow[]
  /** Its launch pool, whose liquidity is read by key (token-liquidity-source.sql). */
  pool?: string
}

/**
 * The facts of tokens that freeze when they happen (creation, launch, the first real block, the
 * pre-launch distribution), kept by a chain processor so that a live batch's token records read
 * only what moves (token-state-sources.sql) for the tokens whose facts it has. The absence of a
 * fact is kept too, which holds while every change of one passes through the processor's batches:
 *  - a creation comes before any log of the token (logs come from the created contract), so a
 *    token first read without one never gets one;
 *  - a launch arrives in a batch's launches: the refresh reads those tokens' facts again
 *    (`forget` before the read, token-refresh.ts);
 *  - a token turns real in the refresh that records it (token-refresh.ts forgets it first);
 *  - the pre-launch distribution is computed at the launch, kept from then on.
 * A rollback or a rebuild may take any of them away: the processor clears what it keeps then.
 * At most `maxTokens` tokens (least recently used evicted); a token not kept is read.
 */
export class TokenFacts {
  private readonly kept: LruMap<KeptFacts>

  constructor(maxTokens: number) {
    this.kept = new LruMap(maxTokens)
  }

  get(token: string): KeptFacts | undefined {
    return this.kept.get(token)
  }

  /**
   * Keep the facts a refresh read for `tokens` (their rows in `sources`); for those launched in
   * the batch, the pre-launch distribution it computed (`prelaunch`) is what the token keeps.
   */
  keep(tokens: Iterable<string>, sources: readonly TokenSourceRow[], launched: ReadonlySet<string>): void {
    const byToken = new Map<string, TokenSourceRow[]>()
    const add = (r: TokenSourceRow) => byToken.set(r.key, [...(byToken.get(r.key) ?? []), r])
    for (const r of sources) {
      if (FACTS.has(r.source)) add(r)
      // The distribution the rows were written with: computed now for a launch, else the kept one.
      else if (r.source === (launched.has(r.key) ? 'prelaunch' : 'kept')) add({ ...r, source: 'kept' })
    }
    for (const token of tokens) {
      const rows = byToken.get(token) ?? []
      const launch = rows.find((r) => r.source === 'launched')
      const pool = launch ? (JSON.parse(launch.fields) as { launch_pool?: string }).launch_pool : undefined
      this.kept.set(token, { rows, pool: pool || undefined })
    }
  }

  /**
   * The deployer a kept token's rows name, as token-state-inputs.ts takes it: its creation's, or,
   * without one, the one it went on naming. Undefined when not kept (a guess only: a read by it
   * is a read of that deployer's tokens, whoever the rows turn out to name).
   */
  deployerOf(token: string): string | undefined {
    const rows = this.kept.peek(token)?.rows ?? []
    const named = (source: TokenSourceRow['source']) => {
      const r = rows.find((x) => x.source === source)
      return r && (JSON.parse(r.fields) as { deployer?: unknown }).deployer
    }
    const deployer = rows.some((r) => r.source === 'created') ? named('created') : named('kept')
    return typeof deployer === 'string' && deployer !== '' ? deployer : undefined
  }

  forget(tokens: Iterable<string>): void {
    for (const t of tokens) this.kept.delete(t)
  }

  clear(): void {
    this.kept.clear()
  }
}
