import { createClickHouse, type ClickHouseClient } from '../core/clickhouse.ts'
import { accountEngine } from '../core/engine-accounting.ts'
import type { Config } from '../core/config.ts'
import { createLogger, type Logger } from '../core/logger.ts'
import { createMetrics, type Metrics } from '../core/metrics.ts'
import { createMemoryStore } from '../core/store/memory-store.ts'
import { createRedisStore } from '../core/store/redis-store.ts'
import type { Store } from '../core/store/types.ts'
import { createKafkaBus } from '../core/bus/kafka-bus.ts'
import { createMemoryBus } from '../core/bus/memory-bus.ts'
import type { Bus } from '../core/bus/types.ts'
import { isDependencyUnavailable } from '../core/dependency.ts'
import { migrate } from '../sql/migrate.ts'
import { stopRole } from './stop-role.ts'

/** The shared parts of one process, chosen by mode: chDB or server, memory or Kafka, memory or Redis. */
export interface Runtime {
  config: Config
  logger: Logger
  metrics: Metrics
  ch: ClickHouseClient
  bus: Bus
  store: Store
  close(): Promise<void>
}

/**
 * Roles that log synchronously (core/logger.ts): the pipelines and simulators, and the one-shot
 * commands whose stdout ends with their answer (`svc roster import`): logged asynchronously, its
 * "runtime ready" line could land after the answer (seen once in CI, on a busy machine).
 */
const logsSynchronously = (role: string) => role.startsWith('pipeline') || role === 'sim' || role === 'roster-import'

/** `bus`: the bus of this process when another provides it (svc start's API process: bin/api-process.ts). */
export async function createRuntime(config: Config, role: string, given: { bus?: Bus } = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL, `svc-${role}`, { sync: logsSynchronously(role) })
  const metrics = createMetrics()
  // Every statement counted by who sent it (svc_engine_statements_total, svc_engine_seconds_total).
  const ch = accountEngine(await createClickHouse(config), metrics)
  await migrateOrRetry(ch, logger, role === 'api')
  const bus = given.bus ?? (config.KAFKA_BROKERS
    ? createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: `svc-${role}`, logger, onPermanentError: (err) => stopRole(logger, err) })
    : createMemoryBus())
  const store = config.REDIS_URL ? createRedisStore(config.REDIS_URL, { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS }) : createMemoryStore()
  logger.info({ mode: config.mode, data_dir: config.CLICKHOUSE_URL ? undefined : config.DATA_DIR }, 'runtime ready')
  return {
    config,
    logger,
    metrics,
    ch,
    bus,
    store,
    async close() {
      await Promise.allSettled([bus.close(), store.close()])
      await ch.close()
    },
  }
}

const MIGRATE_RETRY_MS = 5_000

/** How long a role that needs its tables retries an engine that does not answer at start. */
const MIGRATE_PATIENCE_MS = 120_000

/**
 * Apply the migrations. An API process whose ClickHouse server is unreachable at start still
 * comes up (its /health and endpoints answer 503 naming ClickHouse) and migrates as soon as the
 * server answers; every other role needs its tables before it may do anything: it retries for
 * MIGRATE_PATIENCE_MS (an engine still starting, or too busy to answer within the request
 * timeout, on a loaded machine), then stops.
 */
async function migrateOrRetry(ch: ClickHouseClient, logger: Logger, mayWait: boolean): Promise<void> {
  const attempt = async () => {
    const applied = await migrate(ch)
    if (applied.applied.length) logger.info({ applied: applied.applied }, 'migrations applied')
  }
  const giveUpAt = Date.now() + MIGRATE_PATIENCE_MS
  for (;;) {
    try {
      return await attempt()
    } catch (err) {
      if (!isDependencyUnavailable(err)) throw err
      if (mayWait) {
        logger.error({ err: err.message }, 'ClickHouse unavailable at start: serving 503 until it answers')
        break
      }
      if (Date.now() + MIGRATE_RETRY_MS > giveUpAt) throw err
      logger.warn({ err: err.message, retry_in_ms: MIGRATE_RETRY_MS }, 'ClickHouse unavailable at start: the migrations are tried again')
      await new Promise((r) => setTimeout(r, MIGRATE_RETRY_MS))
    }
  }
  const retry = () =>
    void attempt().catch((e: unknown) => {
      logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'migrations still waiting for ClickHouse')
      setTimeout(retry, MIGRATE_RETRY_MS).unref()
    })
  setTimeout(retry, MIGRATE_RETRY_MS).unref()
}
