import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { servingChangesBetween, type PushedBatch, type ServingChange } from '../../core/records/serving-changes.ts'
import { LATE_CHANGES_WINDOW_US } from '../../core/serving/late-changes.ts'
import { latestDeployerRows } from '../../products/token/deployer-state.ts'
import { latestTokenRows } from '../../products/token/token-state.ts'

/**
 * Launches and named keys one push carries at most: a batch with more (a backfill's) is not
 * pushed, and its followers read it, so a catch-up pays no read-back and sends no large message.
 */
export const MAX_PUSHED_LAUNCHES = 50
export const MAX_PUSHED_KEYS = 5_000

/**
 * A served batch as its processor hands it to the processes that follow it on one host
 * (core/records/serving-changes.ts `PushedBatch`): the keys its refresh named, what other writers
 * named since the batch before (`others`, read by the refresh beside its serving_changes insert:
 * `othersNamedBetween`) and, when it launched tokens, their launch_feed rows (from `launches`,
 * read by its token key: the feed's rows are its view), their token_state rows and its
 * deployers' deployer_state rows, three keyed reads side by side, only for a batch with
 * launches. Null for a batch over MAX_PUSHED_LAUNCHES or MAX_PUSHED_KEYS, or whose others were
 * more than a push carries.
 */
export async function pushOfBatch(
  ch: ClickHouseClient,
  chainId: number,
  at: { after: number; seq: number; watermark: number; chainTime: number },
  named: { tokens: string[]; deployers: string[]; wallets: string[] },
  launched: ReadonlySet<string>,
  others: ServingChange[] | null,
): Promise<PushedBatch | null> {
  if (others === null || launched.size > MAX_PUSHED_LAUNCHES || named.tokens.length + named.deployers.length + named.wallets.length > MAX_PUSHED_KEYS) return null
  const tokens = [...launched]
  const [feed, launchedRows, deployerRows] = tokens.length
    ? await Promise.all([
        queryRows<{ token: string; us: string; block: string }>(
          ch,
          `SELECT DISTINCT token, toUnixTimestamp64Micro(visible_at) AS us, block_number AS block FROM launches
           WHERE chain_id = {chain:UInt32} AND token IN {tokens:Array(String)} ORDER BY us, token`,
          { chain: chainId, tokens },
        ),
        latestTokenRows(ch, chainId, tokens),
        // Every deployer it named (its launched tokens' among them): what a feed page reads next.
        latestDeployerRows(ch, chainId, named.deployers),
      ])
    : [[], [], []]
  return {
    ...at,
    ...named,
    launches: launched.size,
    feed: feed.map((r) => ({ us: Number(r.us), key: r.token, block: Number(r.block) })),
    launchedRows: launchedRows as unknown as PushedBatch['launchedRows'],
    deployerRows: deployerRows as unknown as PushedBatch['deployerRows'],
    others,
  }
}

/**
 * What writers other than a batch's processor named in serving_changes between the change it
 * wrote before (`after`) and the batch (`seq`): a repair's keys, a marker of rows changed under
 * the service; and the scans named since LATE_CHANGES_WINDOW_US before `after` (the scans role
 * may commit one late). One range read on the table's key; null when there are more than a push
 * carries (its followers then read).
 */
export async function othersNamedBetween(ch: ClickHouseClient, chainId: number, after: number, seq: number): Promise<ServingChange[] | null> {
  const read = await servingChangesBetween(ch, chainId, after, seq, MAX_PUSHED_KEYS + 1, { lateKind: 'scan', from: Math.max(0, after - LATE_CHANGES_WINDOW_US) })
  if (read.length > MAX_PUSHED_KEYS) return null
  return read.filter((c) => c.seq !== seq)
}
