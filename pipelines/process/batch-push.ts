import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { servingChangesBetween, type PushedBatch } from '../../core/records/serving-changes.ts'
import { LATE_CHANGES_WINDOW_US } from '../../core/serving/late-changes.ts'
import { latestDeployerRows } from '../../products/token/deployer-state.ts'
import { latestTokenRows } from '../../products/token/token-state.ts'

/**
 * Launches and named keys one push carries at most: a batch with more (a backfill's) is not
 * pushed, and its followers read it, so a catch-up pays no read-back and sends no large message.
 */
export const MAX_PUSHED_LAUNCHES = 50
export const MAX_PUSHED_KEYS = 5_000
/** Change rows the read of other writers' changes takes at most: the batch's own (its keys and marker) and as many again. */
const OTHERS_READ_LIMIT = 2 * (MAX_PUSHED_KEYS + 1)

/**
 * A served batch as its processor hands it to the processes that follow it on one host
 * (core/records/serving-changes.ts `PushedBatch`): the keys its refresh named and, when it
 * launched tokens, their launch_feed rows (from `launches`, read by its token key: the feed's
 * rows are its view), their token_state rows and its deployers' deployer_state rows, three keyed
 * reads side by side, only for a batch with launches; and, for every batch, what other writers
 * named since the batch before (one range read on serving_changes' key, beside them). Null for a
 * batch over MAX_PUSHED_LAUNCHES or MAX_PUSHED_KEYS.
 */
export async function pushOfBatch(
  ch: ClickHouseClient,
  chainId: number,
  at: { after: number; seq: number; watermark: number; chainTime: number },
  named: { tokens: string[]; deployers: string[]; wallets: string[] },
  launched: ReadonlySet<string>,
): Promise<PushedBatch | null> {
  if (launched.size > MAX_PUSHED_LAUNCHES || named.tokens.length + named.deployers.length + named.wallets.length > MAX_PUSHED_KEYS) return null
  const tokens = [...launched]
  // Beside the read-backs: what other writers named since the batch before (its follower applies
  // them with the push instead of reading them before it answers).
  const othersRead = servingChangesBetween(ch, chainId, at.after, at.seq, OTHERS_READ_LIMIT, { lateKind: 'scan', from: Math.max(0, at.after - LATE_CHANGES_WINDOW_US) })
  othersRead.catch(() => {})
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
  const read = await othersRead
  // More than a push carries (the batch's own rows are among them): its followers read instead.
  if (read.length >= OTHERS_READ_LIMIT) return null
  const others = read.filter((c) => c.seq !== at.seq)
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
