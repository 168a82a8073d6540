import type { ViewCheck } from '../../core/records/verify-report.ts'

/**
 * The 5042 activity tables (launch attribution, pipelines/process/arc-rows.ts). Their rows are
 * computed at ingest from logs, not kept by views, so what is checked is what raw rows say of them;
 * a drifted row is re-ingested (no rebuild from raw rows here). A token is sampled whole.
 */

/** arc_token_activity, blocks with transfers: the token's Transfer events in the block and through it. */
export const arcActivityCheck: ViewCheck = {
  view: 'arc_token_activity',
  against: 'the erc20_transfers rows of the launched token (arc_launches) from its launch block, per block and running',
  perChain: true,
  kept: (sample) => `
    SELECT concat(token, '/', toString(block_number)) AS key, toString(tuple(toUInt64(transfers), cum_transfers)) AS v
    FROM arc_token_activity FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')} AND transfers > 0`,
  fresh: (sample) => `
    SELECT concat(token, '/', toString(block_number)) AS key,
           toString(tuple(n, toUInt64(sum(n) OVER (PARTITION BY token ORDER BY block_number ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)))) AS v
    FROM (
      SELECT t.token AS token, t.block_number AS block_number, toUInt64(count()) AS n
      FROM (SELECT token, block_number FROM erc20_transfers FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')}) AS t
      INNER JOIN (SELECT token, min(block_number) AS launch_block FROM arc_launches FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')} GROUP BY token) AS l
      ON l.token = t.token
      WHERE t.block_number >= l.launch_block
      GROUP BY t.token, t.block_number)`,
}

/** arc_activity_by_block: a copy of arc_token_activity in block order, row for row. */
export const arcActivityByBlockCheck: ViewCheck = {
  view: 'arc_activity_by_block',
  against: 'arc_token_activity, row for row (it is that table in block order)',
  perChain: true,
  kept: (sample) => `
    SELECT concat(token, '/', toString(block_number)) AS key, toString(tuple(block_time, via, transfers, swaps, cum_transfers, cum_swaps, cum_volume, last_swap_block)) AS v
    FROM arc_activity_by_block FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')}`,
  fresh: (sample) => `
    SELECT concat(token, '/', toString(block_number)) AS key, toString(tuple(block_time, via, transfers, swaps, cum_transfers, cum_swaps, cum_volume, last_swap_block)) AS v
    FROM arc_token_activity FINAL WHERE chain_id = {chain:UInt32} AND ${sample('token')}`,
}

/** arc_venue_stats, latest row per venue: launches through the venue ('*': all) and their distinct deployers. */
export const arcVenueStatsCheck: ViewCheck = {
  view: 'arc_venue_stats',
  against: 'the arc_launches rows of the venue (count, distinct deployers)',
  perChain: true,
  kept: (sample) => `
    SELECT via AS key, toString(tuple(cum_launches, cum_deployers)) AS v
    FROM (SELECT via, cum_launches, cum_deployers FROM arc_venue_stats FINAL WHERE chain_id = {chain:UInt32} AND ${sample('via')} ORDER BY via, block_number DESC LIMIT 1 BY via)`,
  fresh: (sample) => `
    SELECT via AS key, toString(tuple(toUInt64(count()), toUInt64(uniqExact(deployer)))) AS v
    FROM (SELECT via, deployer FROM arc_launches FINAL WHERE chain_id = {chain:UInt32}
          UNION ALL SELECT '*' AS via, deployer FROM arc_launches FINAL WHERE chain_id = {chain:UInt32})
    WHERE ${sample('via')}
    GROUP BY via`,
}
