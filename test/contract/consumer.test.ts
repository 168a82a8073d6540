import { afterAll, beforeAll } from 'vitest'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { createKafkaBus } from '../../core/bus/kafka-bus.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { kafkaBrokerList } from '../setup/services.ts'
import { tempDir } from '../setup/temp.ts'
import { consumerContract } from './consumer.contract.ts'

// One chDB for the file (one engine per process), shared by both buses' suites.
const dir = tempDir()
let ch: ClickHouseClient
beforeAll(async () => {
  ch = await createClickHouse({ DATA_DIR: dir.path } as never)
})
afterAll(async () => {
  await ch?.close()
  dir.cleanup()
})

consumerContract('memory', () => createMemoryBus(), () => ch)
consumerContract('kafka', () => createKafkaBus({ brokers: kafkaBrokerList(), clientId: 'consumer-contract' }), () => ch)
