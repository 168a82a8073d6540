import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chunks } from '../../core/chunks.ts'
import { engineStep } from '../../core/engine-accounting.ts'
import { sqlFile } from '../../sql/sql-file.ts'
import { DEPLOYER_TOKEN_COLUMNS, deployerRecordOf, deployerStateRow, deployerTokenOf, deployerTokenRowOfValues, type DeployerToken, type VersionedDeployerTokenRow } from './deployer-state.ts'
import { meetsRealThresholds } from './real-token.ts'
import { recordTurnedReal } from './token-real-refresh.ts'
import { jsonLinesUpTo, quotedRange, tokenStateInputs, type TokenSourceRow } from './token-state-inputs.ts'
import type { TokenFacts } from './token-facts.ts'
import { CANDLE_WINDOW_SECONDS, ethUsdFromWindow, tokenStateValues, type CandleWindow } from './token-state-values.ts'

/** Keys per refresh statement: bounds statement size and memory whatever the batch. */
const CHUNK = 2_000

/**
 * token_state for the tokens a batch touched, a chunk of keys at a time: one statement reads every
 * source by key (`token-state-sources.sql`, with `token-prelaunch-source.sql` for tokens whose
 * launch the batch ingested: their pre-launch distribution is computed now, once), the rows are
 * merged per token here, and one insert writes them: `token-state-insert.sql`, or, for a live
 * batch whose quotes' ETH/USD candles that read took too, the rows made whole here, as values
 * (`token-state-values.ts`: the same rows without planning the statement). Answers the
 * deployers of the tokens written (a token's deployer is a fact of its creation: the rows just
 * written name the same deployer as every earlier version of the token).
 *
 * `traded`: the tokens the batch's swaps traded, which may have turned real in it. Whether one did
 * is decided from the totals the sources read (`activity`) and its `real` row: only a token that
 * turned real costs more (its block searched and recorded, its sources read again), so a live
 * batch asks nothing before its records' read.
 */
export async function refreshTokenStates(ch: ClickHouseClient, chainId: number, batch: TokenStatesBatch): Promise<Set<string>> {
  const { deployers, written } = await writeTokenStates(ch, chainId, batch)
  await written
  return deployers
}

export interface TokenStatesBatch {
  tokens: string[]
  launched: ReadonlySet<string>
  version: number
  traded?: ReadonlySet<string>
  /** The batch's chain_blocks insert, when it runs beside: a turned-real token's block time is read from it. */
  blocksIn?: Promise<unknown>
  /** The frozen facts its chain processor keeps (a live batch's); without, every token's are read. */
  facts?: TokenFacts
  /** Told the tokens that turned real, once recorded. */
  onTurnedReal?(tokens: string[]): void
  /**
   * A live batch's head time (unix s): the hour of ETH/USD candles before it is read beside the
   * sources, and when every quote's candle is among them the rows are made here and inserted
   * as values (token-state-values.ts); otherwise, and without it, token-state-insert.sql makes them.
   */
  candlesThrough?: number
}

/** What writeTokenStates wrote, or is writing. */
export interface TokenStatesWrite {
  /** The deployers the rows name. */
  deployers: Set<string>
  /**
   * What a deployer's record takes of each row, when every row was made here (as values); undefined
   * when the engine made some (token-state-insert.sql): those are known only once read back.
   */
  rows?: VersionedDeployerTokenRow[]
  /** The last insert, still under way (every earlier one is in). */
  written: Promise<void>
}

/**
 * refreshTokenStates, answering before its last insert is in: a live batch's deployer records,
 * made from the rows it writes (`rows`), need not wait for them (serving-refresh.ts).
 */
export async function writeTokenStates(ch: ClickHouseClient, chainId: number, batch: TokenStatesBatch): Promise<TokenStatesWrite> {
  const deployers = new Set<string>()
  let made: VersionedDeployerTokenRow[] | undefined = []
  let written: Promise<void> = Promise.resolve()
  for (const part of chunks(batch.tokens, CHUNK)) {
    await written
    // Only this chunk's launches: each chunk reads the pre-launch transfers of its own tokens.
    const launched = part.filter((t) => batch.launched.has(t))
    // A launch is a frozen fact that changed: the launched tokens' facts are read again.
    batch.facts?.forget(launched)
    const window = batch.candlesThrough === undefined ? undefined : { from: batch.candlesThrough - CANDLE_WINDOW_SECONDS, to: batch.candlesThrough }
    let { sources, read } = await tokenSources(ch, chainId, part, launched, batch.facts, window)
    const turned = turnedReal(part.filter((t) => batch.traded?.has(t)), sources)
    if (turned.length) {
      await batch.blocksIn
      await recordTurnedReal(engineStep(ch, 'token_real'), chainId, turned)
      batch.onTurnedReal?.(turned)
      const again = new Set(turned)
      batch.facts?.forget(turned)
      const reread = await tokenSources(ch, chainId, turned, launched.filter((t) => again.has(t)), batch.facts)
      sources = [...sources.filter((r) => !again.has(r.key)), ...reread.sources]
      read = [...new Set([...read, ...turned])]
    }
    const launchedSet = new Set(launched)
    const rows = tokenStateInputs(part, launchedSet, sources)
    for (const r of rows) if (typeof r.deployer === 'string' && r.deployer !== '') deployers.add(r.deployer)
    const ethUsd = window && ethUsdFromWindow(rows, sources, window, quotedRange(rows))
    const values = ethUsd && rows.map((r) => tokenStateValues(r, chainId, batch.version, ethUsd.get(r.token) ?? null))
    let inserted: Promise<void>
    if (values?.every((v) => v !== undefined)) {
      made?.push(...values.map((v) => deployerTokenRowOfValues(v!)))
      inserted = values.length ? engineStep(ch, 'token_state').insert({ table: 'token_state', values, format: 'JSONEachRow' }).then(() => {}) : Promise.resolve()
    } else {
      made = undefined
      inserted = (async () => {
        // The rows travel as a query parameter (the same statement for the embedded engine and a
        // server; a server takes it in the URL), a bounded size per statement.
        for (const piece of jsonLinesUpTo(rows, INSERT_BYTES)) {
          await engineStep(ch, 'token_state').command({
            query: sqlFile(INSERT),
            query_params: { chain: chainId, version: batch.version, rows: piece.text, ...quotedRange(piece.rows) },
          })
        }
      })()
    }
    // Kept once written: a batch retried after a fault reads what it read again.
    written = inserted.then(() => batch.facts?.keep(read, sources, launchedSet))
  }
  // Marked handled now: its caller awaits it after other work.
  written.catch(() => {})
  return { deployers, rows: made, written }
}

/**
 * The sources of `tokens` (one row per source and key), with the pre-launch ones of `launched`,
 * in one statement: what moves for every token; the frozen facts (token-facts.ts) from `facts`
 * for the tokens it keeps, read for the others (answered as `read`), so a batch whose tokens are
 * all kept plans three or four branches instead of eight.
 */
async function tokenSources(ch: ClickHouseClient, chainId: number, tokens: string[], launched: string[], facts?: TokenFacts, candles?: CandleWindow): Promise<{ sources: TokenSourceRow[]; read: string[] }> {
  const kept: TokenSourceRow[] = []
  const pools: string[] = []
  const read: string[] = []
  for (const token of tokens) {
    const k = facts?.get(token)
    if (!k) read.push(token)
    else {
      kept.push(...k.rows)
      if (k.pool) pools.push(k.pool)
    }
  }
  const branches = [SOURCES, ...(pools.length ? [LIQUIDITY_SOURCE] : []), ...(read.length ? [FROZEN_SOURCES] : []), ...(launched.length ? [PRELAUNCH_SOURCE] : []), ...(candles ? [CANDLE_SOURCE] : [])]
  const rows = await (await engineStep(ch, 'token_state').query({
    query: branches.map(sqlFile).join('\nUNION ALL\n'),
    query_params: { chain: chainId, tokens, pools, facts: read, launched, ...(candles ? { candlesFrom: candles.from, candlesTo: candles.to } : {}) },
    format: 'JSONEachRow',
    // The fields' 64-bit and wider integers as strings, whatever the client's defaults.
    clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
  })).json<TokenSourceRow>()
  return { sources: [...rows, ...kept], read }
}

/** Of `candidates`, those without a `real` source whose `activity` totals meet the thresholds. */
function turnedReal(candidates: string[], sources: readonly TokenSourceRow[]): string[] {
  if (candidates.length === 0) return []
  const wanted = new Set(candidates)
  const real = new Set(sources.filter((r) => r.source === 'real' && wanted.has(r.key)).map((r) => r.key))
  return sources
    .filter((r) => r.source === 'activity' && wanted.has(r.key) && !real.has(r.key))
    .filter((r) => meetsRealThresholds(JSON.parse(r.fields) as { swaps: unknown; traders: unknown; weth_volume: unknown }))
    .map((r) => r.key)
}

/**
 * Bytes of rows per insert statement: URL-encoded (up to about three times as long) they stay
 * inside a server's URI limit (1 MiB by default).
 */
const INSERT_BYTES = 160 * 1024

const SOURCES = new URL('./token-state-sources.sql', import.meta.url)
const LIQUIDITY_SOURCE = new URL('./token-liquidity-source.sql', import.meta.url)
const FROZEN_SOURCES = new URL('./token-frozen-sources.sql', import.meta.url)
const PRELAUNCH_SOURCE = new URL('./token-prelaunch-source.sql', import.meta.url)
const CANDLE_SOURCE = new URL('./token-candle-source.sql', import.meta.url)
const INSERT = new URL('./token-state-insert.sql', import.meta.url)

/**
 * The deployers token_state has ever named for `tokens` (every version): after a rollback or in a
 * rebuild, a token may have lost the creation that named its deployer, whose record must drop it.
 */
export async function storedDeployersOf(ch: ClickHouseClient, chainId: number, tokens: string[]): Promise<Set<string>> {
  const deployers = new Set<string>()
  for (const part of chunks(tokens, CHUNK)) {
    const rows = await queryRows<{ deployer: string }>(
      ch,
      "SELECT DISTINCT deployer FROM token_state WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} AND deployer != ''",
      { chain: chainId, tokens: part },
    )
    for (const r of rows) deployers.add(r.deployer)
  }
  return deployers
}

/**
 * The newest row of each token that names one of `deployers` (a tombstone names its deployer too),
 * what a deployer's record takes of it, read through projection by_deployer.
 */
export async function readDeployerTokens(ch: ClickHouseClient, chainId: number, deployers: Iterable<string>): Promise<VersionedDeployerTokenRow[]> {
  const rows: VersionedDeployerTokenRow[] = []
  for (const part of chunks([...deployers], CHUNK)) {
    rows.push(...(await queryRows<VersionedDeployerTokenRow>(
      ch,
      `SELECT ${DEPLOYER_TOKEN_COLUMNS}, toString(version) AS version FROM token_state WHERE chain_id = {chain:UInt32} AND deployer IN {deployers:Array(String)} ORDER BY token, version DESC LIMIT 1 BY token`,
      { chain: chainId, deployers: part },
    )))
  }
  return rows
}

/**
 * deployer_state for `deployers` (a batch's tokens' deployers, from refreshTokenStates, and the
 * deployers of tokens that turned idle, from idle-deployers.ts), from their tokens' newest rows.
 * Answers the deployers refreshed.
 *
 * A live batch need not wait for its own token rows to be in (serving-refresh.ts): `written` are
 * those rows, laid over what is read, and `stored` a read of some deployers' tokens begun earlier
 * (what the batch writes is not in it, or is the same rows); the other deployers are read here.
 */
export async function refreshDeployerStates(
  ch: ClickHouseClient,
  chainId: number,
  batch: { deployers: Set<string>; chainTime: number; version: number; written?: readonly VersionedDeployerTokenRow[]; stored?: { deployers: ReadonlySet<string>; rows: Promise<VersionedDeployerTokenRow[]> } },
): Promise<Set<string>> {
  const { deployers, stored } = batch
  const rest = [...deployers].filter((d) => !stored?.deployers.has(d))
  const [early, late] = await Promise.all([stored?.rows ?? [], rest.length ? readDeployerTokens(ch, chainId, rest) : []])
  // Each token's newest row among those naming one of `deployers`, as one read of them all
  // answers; the batch's own rows are the newest (of the same version, the same rows).
  const newest = new Map<string, VersionedDeployerTokenRow>()
  for (const r of [...early, ...late, ...(batch.written ?? [])]) {
    if (!deployers.has(r.deployer)) continue
    const had = newest.get(r.token)
    if (!had || BigInt(r.version) >= BigInt(had.version)) newest.set(r.token, r)
  }
  const byDeployer = new Map<string, DeployerToken[]>()
  // In token order, as the read returns them: of two tokens with the same volume, the first is the best.
  for (const r of [...newest.values()].sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : 0))) {
    const t = deployerTokenOf(r, batch.chainTime)
    if (!t) continue
    if (!byDeployer.has(r.deployer)) byDeployer.set(r.deployer, [])
    byDeployer.get(r.deployer)!.push(t)
  }
  const deployerRows = [...deployers].map((d) => ({ chain_id: chainId, ...deployerStateRow(d, deployerRecordOf(d, byDeployer.get(d) ?? [])), version: batch.version }))
  if (deployerRows.length) await ch.insert({ table: 'deployer_state', values: deployerRows, format: 'JSONEachRow' })
  return deployers
}
