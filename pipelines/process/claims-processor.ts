import { engineFor } from '../../core/engine-accounting.ts'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { createConsumer } from '../consumer/create-consumer.ts'
import { createTableSink } from '../consumer/table-sink.ts'
import { claimRow, LeaderboardClaim } from '../../products/wallet/leaderboard-claim.ts'
import { namespaced, TOPICS } from '../../core/bus/topics.ts'

/**
 * Consumes `leaderboard.claims` into `leaderboard_claims` (migration 021). The table replaces on
 * (claimed_at, source, wallet) and no view aggregates it, so a redelivered claim is one row; the
 * batch token also drops an identical retry.
 */
export function createClaimsProcessor(deps: { ch: ClickHouseClient; bus: Bus; logger: Logger; metrics: Metrics; namespace?: string; onInserted?(rows: number): void }) {
  const name = 'leaderboard-claims'
  const engine = engineFor(deps.ch, name)
  return createConsumer({
    ...deps,
    name,
    engine,
    topic: TOPICS.leaderboardClaims,
    schema: LeaderboardClaim,
    maxBatchSize: 1000,
    sink: createTableSink<LeaderboardClaim>({ name: 'claims-writer', ch: engine, metrics: deps.metrics, tables: (v) => [['leaderboard_claims', v.map(claimRow)]], onInserted: deps.onInserted }),
  })
}

/** Put a leaderboard on the bus (admin endpoint, `svc roster import`, the simulator). */
export async function publishClaims(bus: Bus, namespace: string | undefined, claims: LeaderboardClaim[]): Promise<void> {
  await bus.publish(
    namespaced(namespace ?? '', TOPICS.leaderboardClaims),
    claims.map((c) => ({ key: c.wallet, value: JSON.stringify(c) })),
  )
}
