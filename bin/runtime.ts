import { createClickHouse, type ClickHouseClient } from '../core/clickhouse.ts'
import type { Config } from '../core/config.ts'
import { createLogger, type Logger } from '../core/logger.ts'
import { createMetrics, type Metrics } from '../core/metrics.ts'
import { createMemoryStore } from '../core/store/memory-store.ts'
import { createRedisStore } from '../core/store/redis-store.ts'
import type { Store } from '../core/store/types.ts'
import { createKafkaBus } from '../pipelines/bus/kafka-bus.ts'
import { createMemoryBus } from '../pipelines/bus/memory-bus.ts'
import type { Bus } from '../pipelines/bus/types.ts'
import { migrate } from '../sql/migrate.ts'

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

export async function createRuntime(config: Config, role: string): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL, `svc-${role}`, { sync: role.startsWith('pipeline') || role === 'sim' })
  const metrics = createMetrics()
  const ch = await createClickHouse(config)
  const applied = await migrate(ch)
  if (applied.applied.length) logger.info({ applied: applied.applied }, 'migrations applied')
  const bus = config.KAFKA_BROKERS
    ? createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: `svc-${role}`, logger })
    : createMemoryBus()
  const store = config.REDIS_URL ? createRedisStore(config.REDIS_URL) : createMemoryStore()
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
