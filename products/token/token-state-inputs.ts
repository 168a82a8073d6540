/**
 * The rows `token-state-insert.sql` reads: a token's sources (`token-state-sources.sql`, one row
 * per source and key, its fields as a JSON object) merged into one object per token. The field
 * names are the insert's input columns; a source a token lacks leaves its fields out, and the
 * engine fills their defaults.
 */

/** One source's fields for one key (a token; the launch pool for `liquidity`). */
export interface TokenSourceRow {
  source: 'created' | 'launched' | 'activity' | 'real' | 'quoted' | 'supply' | 'liquidity' | 'kept' | 'prelaunch' | 'candle'
  key: string
  fields: string
}

export type TokenStateInput = Record<string, unknown> & { token: string; quoted_at?: number | string }

/**
 * One input row per token that is ours (created or launched) or was (a kept row: a reorg removed
 * its creation and launch, and it gets present = 0). A token whose launch the batch ingested
 * (`launched`) takes its pre-launch distribution as computed now; any other keeps the one it has.
 */
export function tokenStateInputs(tokens: readonly string[], launched: ReadonlySet<string>, sources: readonly TokenSourceRow[]): TokenStateInput[] {
  const bySource = new Map<TokenSourceRow['source'], Map<string, Record<string, unknown>>>()
  for (const r of sources) {
    if (!bySource.has(r.source)) bySource.set(r.source, new Map())
    bySource.get(r.source)!.set(r.key, JSON.parse(r.fields) as Record<string, unknown>)
  }
  const of = (source: TokenSourceRow['source'], key: string | undefined) => (key === undefined ? undefined : bySource.get(source)?.get(key))

  const rows: TokenStateInput[] = []
  for (const token of tokens) {
    const created = of('created', token)
    const launch = of('launched', token)
    const kept = of('kept', token)
    if (!created && !launch && !kept) continue // never a token of ours (WETH, an untracked ERC20)
    const real = of('real', token)
    const quoted = of('quoted', token)
    const distribution = launched.has(token) ? of('prelaunch', token) : kept
    rows.push({
      ...created, ...launch, ...of('activity', token), ...real, ...quoted, ...of('supply', token),
      ...of('liquidity', launch?.launch_pool as string | undefined),
      prelaunch_recipients: distribution?.prelaunch_recipients ?? 0,
      // A token whose creation a reorg took away goes on naming the deployer it had (created = 0
      // says it is no longer that deployer's): a deployer's record reads its tokens' newest rows
      // that name it (token-refresh.ts), so this row, not an older one, is the token's there.
      ...(created ? {} : { deployer: kept?.deployer ?? '' }),
      token,
      present: created || launch ? 1 : 0,
      created: created ? 1 : 0,
      launched: launch ? 1 : 0,
      is_real: real ? 1 : 0,
      quoted: quoted ? 1 : 0,
    })
  }
  return rows
}

const DAY = 86_400

/**
 * The candle range the insert reads for ETH/USD: from a day before the earliest quote (the latest
 * candle at or before a quote may be that old) to the latest; empty when nothing is quoted.
 */
export function quotedRange(rows: readonly TokenStateInput[]): { quotedFrom: number; quotedTo: number } {
  let lo = Infinity
  let hi = -Infinity
  for (const r of rows) {
    if (r.quoted_at === undefined) continue
    const at = Number(r.quoted_at)
    lo = Math.min(lo, at)
    hi = Math.max(hi, at)
  }
  return hi < lo ? { quotedFrom: 1, quotedTo: 0 } : { quotedFrom: Math.max(0, lo - DAY), quotedTo: hi }
}

/** Rows as JSON lines, split into pieces of at most `bytes` (a row longer than that alone). */
export function* jsonLinesUpTo<T>(rows: readonly T[], bytes: number): Generator<{ rows: T[]; text: string }> {
  let piece: T[] = []
  let lines: string[] = []
  let size = 0
  for (const row of rows) {
    const line = JSON.stringify(row)
    if (piece.length && size + line.length + 1 > bytes) {
      yield { rows: piece, text: lines.join('\n') }
      piece = []
      lines = []
      size = 0
    }
    piece.push(row)
    lines.push(line)
    size += line.length + 1
  }
  if (piece.length) yield { rows: piece, text: lines.join('\n') }
}
