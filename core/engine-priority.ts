/**
 * Who goes first on an engine the service shares (the engine process, a server): ClickHouse's
 * own query priority, where 1 runs first and a statement of a larger number pauses while one of a
 * smaller number runs. API reads (the service user's default) before the pipeline's statements,
 * and both before the data team's ad-hoc SQL. Over chDB in one process statements run one at a
 * time anyway, and these are not sent.
 */
export const ENGINE_PRIORITY = {
  /** The service user's default profile: API reads, scans, the audit — every statement outside a consumer. */
  api: 1,
  /** Statements a pipeline consumer runs (its inserts and refreshes), set per statement. */
  pipeline: 2,
  /** The analysts' settings profile (SQL_LIMITS.priority), fixed there. */
  analyst: 10,
} as const
