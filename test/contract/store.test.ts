import { createMemoryStore } from '../../core/store/memory-store.ts'
import { createRedisStore } from '../../core/store/redis-store.ts'
import { requireRedisUrl } from '../setup/services.ts'
import { storeContract } from './store.contract.ts'

storeContract('memory', () => createMemoryStore())
storeContract('redis', () => createRedisStore(requireRedisUrl()))
