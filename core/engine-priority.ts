/**
 * Who goes first on an engine the service shares with the data team (the engine process, a
 * server): ClickHouse's own query priority, where 1 runs first and a statement of a larger number
 * pauses while one of a smaller number runs. The service's statements (API reads, the pipeline,
 * scans) all run at 1: sending the pipeline's at 2, behind API reads, was measured to slow the
 * 24 h backfill (live 200 s after start instead of 160 s) with no gain in read latency
 * (`npm run bench -- load`, `-- door`). Over chDB in one process statements run one at a time,
 * and priorities do not apply.
 */
export const ENGINE_PRIORITY = {
  /** The service user's profile (engine-files' `service`; on a cluster, the service user's profile). */
  service: 1,
  /** The analysts' settings profile (SQL_LIMITS.priority), fixed there. */
  analyst: 10,
} as const
