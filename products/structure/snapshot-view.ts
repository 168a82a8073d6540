import { z } from 'zod'
import { STRUCTURE_VERDICTS, type StructureVerdict } from './structure-verdict.ts'
import type { StructureSnapshot } from './scan-results.ts'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'
import { HolderLabelView } from './structure-view.ts'

/** One archived holder snapshot (a structure scan of a token), as /structure/{token}/history shows it. */
export const SnapshotView = z.object({
  measured_through_block: BlockNumber,
  window: z.object({ from_block: BlockNumber, from_time: z.string(), to_block: BlockNumber, to_time: z.string() }).meta({ description: 'the 24 h diff window of the scan (chain clock)' }),
  trigger: z.enum(['daily', 'request']).meta({ description: 'daily: the automatic scan of a watched token; request: a POST /structure/{token}' }),
  taken_at: z.string(),
  holder_count: z.number().int(),
  top_holders: z.array(z.object({ address: z.string(), balance_wei: Wei, share: z.string(), labels: z.array(HolderLabelView) })),
  diff_summary: z.object({ frozen: z.number().int(), added: z.number().int(), trimmed: z.number().int(), exited: z.number().int() }),
  verdict: z.enum(STRUCTURE_VERDICTS).meta({ description: 'the structure verdict of that scan' }),
})

const iso = (s: number) => new Date(s * 1000).toISOString()

export function snapshotView(s: StructureSnapshot): z.infer<typeof SnapshotView> {
  return {
    measured_through_block: s.toBlock,
    window: { from_block: s.fromBlock, from_time: iso(s.fromTime), to_block: s.toBlock, to_time: iso(s.toTime) },
    trigger: s.trigger,
    taken_at: s.takenAt,
    holder_count: s.holderCount,
    top_holders: s.top.map((h) => ({ address: h.address, balance_wei: h.balanceWei.toString(), share: h.share, labels: h.labels })),
    diff_summary: s.summary,
    verdict: s.verdict as StructureVerdict,
  }
}
