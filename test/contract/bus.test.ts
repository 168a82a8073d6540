import { createKafkaBus } from '../../core/bus/kafka-bus.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { kafkaBrokerList } from '../setup/services.ts'
import { busContract } from './bus.contract.ts'

busContract('memory', () => createMemoryBus())
busContract('kafka', () => createKafkaBus({ brokers: kafkaBrokerList(), clientId: 'contract-test' }))
