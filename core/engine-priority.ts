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

/**
 * Threads one of the service's statements uses (the service profile's `max_threads`). Every
 * statement the service sends is small (a batch's inserts and its refreshes by key, an API miss,
 * a keyed scan), and on a machine of two cores a statement split over two threads spent more on
 * the split than it gained while the other core ran the rest of the service: measured with
 * `npm run bench -- pipeline` (one run each, same session), the idle service's process tree 35.5%
 * -> 24.4% of a core, a live chain-4663 batch 197 -> 141 ms mean (p99 bound 500 -> 250 ms), the
 * 24 h backfill live 87 -> 77 s after start. Analysts' queries keep ClickHouse's default (their
 * own profile). A cluster with many cores may give the service's profile more.
 */
export const ENGINE_SERVICE_MAX_THREADS = 1
