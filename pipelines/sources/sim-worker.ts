import { parentPort } from 'node:worker_threads'
import { createLogger } from '../../core/logger.ts'
import type { Bus } from '../../core/bus/types.ts'
import type { Metrics } from '../../core/metrics.ts'
import { createSimSource, type SimSource } from './sim-source.ts'
import type { FromSimWorker, SimWorkerCall, SimWorkerConfig, ToSimWorker } from './sim-worker-messages.ts'

/**
 * The worker thread of a simulated chain (started by sim-in-worker.ts): the simulator itself,
 * generating and encoding blocks and the social world off the process's main thread, which
 * carries the pipeline and the API. What it publishes, the checkpoints' durability and the
 * metrics are the process's: asked for by message (sim-worker-messages.ts). It is booted before
 * the process knows what to simulate: the first message says.
 */
const port = parentPort!
const post = (m: FromSimWorker) => port.postMessage(m)

let nextId = 0
const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>()
function call<T>(request: SimWorkerCall): Promise<T> {
  const id = ++nextId
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (v: unknown) => void, reject })
    post({ type: 'call', id, ...request })
  })
}

let ingested = 0
let source: SimSource | undefined
let stopping: Promise<void> | undefined

const metrics: Pick<Metrics, 'infraRetries' | 'infraFaults'> = {
  infraRetries: { inc: (labels: { consumer: string; kind: string }) => post({ type: 'retried', ...labels }) } as unknown as Metrics['infraRetries'],
  infraFaults: {
    retrying: (component, at, kind, err) => post({ type: 'retrying', component, at, kind, message: err instanceof Error ? err.message : String(err) }),
    cleared: (component, at) => post({ type: 'cleared', component, at }),
    active: () => [],
    own: () => [],
    onChange: () => {},
    setPeer: () => {},
  },
}

function begin(config: SimWorkerConfig): void {
  const bus: Pick<Bus, 'ensureTopics' | 'publish'> = {
    ensureTopics: (topics) => call({ op: 'ensureTopics', topics }),
    // Handed over, not waited on (sim-worker-messages.ts): waiting for the process's turn per
    // chunk held the simulator back whenever the main thread was busy with a batch.
    publish: async (topic, records) => post({ type: 'publish', topic, records, next: sim.nextBlock() }),
  }
  const cps = config.checkpoints
  const sim = createSimSource({
    ...config,
    bus,
    logger: createLogger(config.logLevel, config.logName, { sync: true }),
    metrics,
    ingested: config.paced ? () => ingested : undefined,
    checkpoints: cps && {
      everyMs: cps.everyMs,
      drainMs: cps.drainMs,
      save: (checkpoint) => call({ op: 'save', checkpoint }),
      durable: cps.durable ? (counts) => call<boolean>({ op: 'durable', counts }) : undefined,
    },
  })
  source = sim
  sim.run().then(
    () => post({ type: 'ran' }),
    (err: unknown) => post({ type: 'failed', message: err instanceof Error ? err.message : String(err) }),
  )
}

// One listener from the first message on: messages queued behind the configuration are not lost.
port.on('message', (m: ToSimWorker) => {
  switch (m.type) {
    case 'config':
      begin(m.config)
      break
    case 'ingested':
      ingested = m.block
      break
    case 'stop':
      stopping ??= (source?.stop() ?? Promise.resolve()).then(() => post({ type: 'stopped' }))
      break
    case 'reply': {
      const w = waiting.get(m.id)
      waiting.delete(m.id)
      if (!w) return
      if (!m.error) w.resolve(m.value)
      // Its name and code carry what kind of fault it was (/health's error class).
      else w.reject(Object.assign(new Error(m.error.message), { name: m.error.name ?? 'Error', code: m.error.code }))
      break
    }
  }
})
