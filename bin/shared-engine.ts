import { ConfigError, type Config } from '../core/config.ts'

/**
 * A role that serves what other roles write (the API, the scans and alerts roles) must read the
 * ClickHouse they write to. With KAFKA_BROKERS the roles are separate processes, and without
 * CLICKHOUSE_URL each would open its own private engine under DATA_DIR (chDB: one process per
 * data path), which nothing else writes: it would start, answer empty, drop scan jobs for tokens
 * it cannot see, and call itself healthy. So it refuses to start, naming the fix.
 */
export function refusePrivateEngine(config: Config, role: string): void {
  if (!config.KAFKA_BROKERS || config.CLICKHOUSE_URL) return
  throw new ConfigError(
    `svc ${role} reads what the pipeline roles write, but KAFKA_BROKERS is set and CLICKHOUSE_URL is not: ` +
      `it would read a private engine under DATA_DIR=${config.DATA_DIR} that no other process writes to. ` +
      `Fix: run every role with CLICKHOUSE_URL set to the shared engine that bash infra/up.sh starts and prints ` +
      `(bash infra/up.sh > svc.env && set -a && . ./svc.env && set +a), then start svc ${role} again; ` +
      `or, for everything in one process, unset KAFKA_BROKERS and run svc start.`,
  )
}
