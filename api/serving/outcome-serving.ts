import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import type { HorizonName, RecordedMark, RecordedVerdict } from '../../core/domain/basket.ts'
import type { ApiDeps } from '../deps.ts'
import { iso } from '../views/caller.ts'

export interface RecordedOutcomes {
  verdicts: RecordedVerdict[]
  marks: RecordedMark[]
}

/**
 * The recorded +15 min verdicts and their forward marks (launch_verdicts, launch_marks: one row
 * per launch and per launch and horizon, written by pipelines/process/launch-verdicts.ts), read
 * once per served batch and shared by /basket and /proof.json. They are measurements recorded
 * when taken; nothing here recomputes a verdict or a mark.
 */
export function recordedOutcomes(deps: Pick<ApiDeps, 'ch' | 'cache' | 'watermarks' | 'tokens'>): Promise<RecordedOutcomes> {
  const chain = deps.tokens.chainId
  return deps.tokens.sync().then(() =>
    deps.cache.get(`recorded-outcomes:${chain}`, deps.watermarks.version(chain), async () => {
      const [verdicts, marks] = await Promise.all([
        queryRows<{ token: string; symbol: string; signal: string; confidence: number; at: string; taken_block: string; taken_at: string; lag: number; quoted: number; price: string; qb: string }>(
          deps.ch,
          `SELECT token, symbol, signal, confidence, toUnixTimestamp(launched_at) AS at, taken_block, toUnixTimestamp(taken_at) AS taken_at, lag_seconds AS lag,
                  quoted, entry_price_weth AS price, entry_quote_block AS qb
           FROM launch_verdicts WHERE chain_id = {chain:UInt32} ORDER BY launched_at, token, taken_block LIMIT 1 BY token`,
          { chain },
        ),
        queryRows<{ token: string; horizon: HorizonName; marked_block: string; marked_at: string; quoted: number; price: string; ret: number | null; is_real: number; dead: string }>(
          deps.ch,
          `SELECT token, horizon, marked_block, toUnixTimestamp(marked_at) AS marked_at, quoted, price_weth AS price, forward_return AS ret, is_real, dead
           FROM launch_marks WHERE chain_id = {chain:UInt32} ORDER BY horizon, launched_at, token, marked_block LIMIT 1 BY horizon, token`,
          { chain },
        ),
      ])
      return {
        verdicts: verdicts.map((v) => ({
          token: v.token, symbol: v.symbol, signal: v.signal, confidence: Number(v.confidence), launchedAt: Number(v.at), takenBlock: Number(v.taken_block),
          takenAt: Number(v.taken_at), lagSeconds: Number(v.lag), entryPrice: Number(v.quoted) ? v.price : null, entryBlock: Number(v.quoted) ? Number(v.qb) : null,
        })),
        marks: marks.map((m) => ({
          token: m.token, horizon: m.horizon, markedBlock: Number(m.marked_block), markedAt: Number(m.marked_at), price: Number(m.quoted) ? m.price : null,
          return: m.ret === null ? null : Number(m.ret), isReal: Boolean(Number(m.is_real)), dead: m.dead || null,
        })),
      }
    }),
  )
}

/** The launch times of the first and last recorded verdicts an answer counts (chain clock). */
export const LaunchWindow = z.object({ launched_from: z.string().nullable(), launched_to: z.string().nullable() })

export function launchWindow(counted: RecordedVerdict[]): z.infer<typeof LaunchWindow> {
  return counted.length ? { launched_from: iso(counted[0]!.launchedAt), launched_to: iso(counted[counted.length - 1]!.launchedAt) } : { launched_from: null, launched_to: null }
}
