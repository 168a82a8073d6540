import { Worker } from 'node:worker_threads'
import { createRetryingPublisher } from './retrying-publisher.ts'
import type { FromSimWorker, SimWorkerConfig, ToSimWorker } from './sim-worker-messages.ts'
import type { SimSource, SimSourceOptions } from './sim-source.ts'

/**
 * How often the chain's ingested block is looked at for the worker when the owner does not say it
 * moved (`ingestedMoved`, after each batch in `svc start`). It was looked at every 20 ms: 50
 * wakeups a second per chain on the main thread of an idle service, for a value that moves once
 * a batch.
 */
const INGESTED_POLL_MS = 1000

/** A worker thread booted for a simulator: its loader and modules load while the process starts. */
export interface SimWorkerBoot {
  readonly worker: Worker
}

/**
 * Boot a simulator's worker now (about 1.4 s here: the TypeScript loader and the simulator's
 * modules), to be given its simulator by createSimSourceInWorker. It does not keep the process
 * alive on its own.
 */
export function bootSimWorker(): SimWorkerBoot {
  const worker = new Worker(new URL('./sim-worker-boot.mjs', import.meta.url))
  worker.unref()
  return { worker }
}

/**
 * A simulated chain (createSimSource) run in a worker thread: generating and encoding the world is
 * the largest part of a backfill's work in the process, and on the main thread it shared one core
 * with the pipeline and the API. The same simulator, options and records; publishing goes through
 * this thread's bus, and the checkpoints, their durability and the metrics stay here.
 */
export function createSimSourceInWorker(opts: SimSourceOptions & { logName: string; boot?: SimWorkerBoot }): SimSource {
  const { bus, logger, metrics, checkpoints } = opts
  const config: SimWorkerConfig = {
    chainId: opts.chainId, namespace: opts.namespace, seed: opts.seed, blockSeconds: opts.blockSeconds, start: opts.start,
    untilBlock: opts.untilBlock, chunk: opts.chunk, social: opts.social, prices: opts.prices, launchpads: opts.launchpads,
    maxAheadBlocks: opts.maxAheadBlocks, progressEveryMs: opts.progressEveryMs,
    logName: opts.logName, logLevel: logger.level, paced: opts.ingested !== undefined,
    checkpoints: checkpoints && { everyMs: checkpoints.everyMs, drainMs: checkpoints.drainMs, durable: checkpoints.durable !== undefined },
  }
  let worker: Worker | undefined
  let running: Promise<void> | undefined
  let stopped: Promise<void> | undefined
  let next = opts.start.fromBlock
  let told = -1
  let pacer: NodeJS.Timeout | undefined
  let stopping = false
  const send = (m: ToSimWorker) => worker?.postMessage(m)
  /** The worker learns the ingested block when it changed. */
  const tellIngested = () => {
    const block = opts.ingested?.()
    if (block !== undefined && block !== told) send({ type: 'ingested', block: (told = block) })
  }
  // The worker's records, published here one after another in the order generated, each retried
  // until the bus takes it (a broker away holds the rest behind it, as in the worker-less source).
  const publish = createRetryingPublisher({ bus, logger, component: `sim-${opts.chainId}`, metrics, stopped: () => stopping })
  let published: Promise<void> = Promise.resolve()

  async function answer(m: Extract<FromSimWorker, { type: 'call' }>): Promise<unknown> {
    switch (m.op) {
      case 'ensureTopics':
        return bus.ensureTopics(m.topics)
      case 'save':
        return checkpoints?.save(m.checkpoint)
      case 'durable':
        return checkpoints?.durable ? checkpoints.durable(m.counts) : true
    }
  }

  function start(): Promise<void> {
    const w = (opts.boot ?? bootSimWorker()).worker
    worker = w
    send({ type: 'config', config })
    if (opts.ingested) {
      tellIngested()
      pacer = setInterval(tellIngested, opts.ingestedPollMs ?? INGESTED_POLL_MS)
      pacer.unref()
    }
    return new Promise<void>((resolve, reject) => {
      const fail = (err: unknown) => {
        reject(err)
        void w.terminate()
      }
      w.on('message', (m: FromSimWorker) => {
        switch (m.type) {
          case 'call':
            answer(m).then(
              (value) => send({ type: 'reply', id: m.id, value }),
              (err: unknown) => {
                const e = err as { message?: string; name?: string; code?: unknown }
                send({ type: 'reply', id: m.id, error: { message: e.message ?? String(err), name: e.name, code: typeof e.code === 'string' ? e.code : undefined } })
              },
            )
            break
          case 'publish':
            // A publish refused for good (or given up once stopping) stops the simulator, as it would in this thread.
            published = published.then(() => publish(m.topic, m.records)).then(() => void (next = m.next))
            published.catch(fail)
            break
          case 'retried':
            metrics?.infraRetries.inc({ consumer: m.consumer, kind: m.kind })
            break
          case 'retrying':
            metrics?.infraFaults.retrying(m.component, m.at, m.kind, new Error(m.message))
            break
          case 'cleared':
            metrics?.infraFaults.cleared(m.component, m.at)
            break
          case 'ran':
            // Done once what it generated is published.
            published.then(resolve, fail)
            break
          case 'failed':
            reject(new Error(m.message))
            break
          case 'stopped':
            // Its last records go out before the worker does.
            void published.finally(() => w.terminate())
            break
        }
      })
      w.on('error', reject)
      w.on('exit', () => {
        if (pacer) clearInterval(pacer)
        resolve()
      })
    })
  }

  return {
    run() {
      running ??= start()
      return running
    },
    stop() {
      stopped ??= (async () => {
        const w = worker
        if (!w) return
        const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()))
        stopping = true
        send({ type: 'stop' })
        await exited
      })()
      return stopped
    },
    nextBlock: () => next,
    ingestedMoved: tellIngested,
  }
}
