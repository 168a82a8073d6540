import type { ViewCheck } from '../../core/records/verify-report.ts'

/**
 * chain_blocks below the watermark: every block number from the chain's first ingested block
 * through its watermark (its last) is there. A missing block cannot be rebuilt from other rows:
 * it is re-ingested (the source from that block on), so there is no repair here.
 */
export const chainBlocksCheck: ViewCheck = {
  view: 'chain_blocks',
  against: 'every block number from the first ingested block through the watermark',
  perChain: true,
  kept: (sample) => `SELECT toString(number) AS key, 'present' AS v FROM chain_blocks WHERE chain_id = {chain:UInt32} AND ${sample('number')} GROUP BY number`,
  fresh: (sample) => `
    SELECT toString(number) AS key, 'present' AS v
    FROM (SELECT arrayJoin(range(min(number), max(number) + 1)) AS number FROM chain_blocks WHERE chain_id = {chain:UInt32})
    WHERE ${sample('number')}`,
}
