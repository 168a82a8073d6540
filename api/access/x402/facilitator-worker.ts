import { parentPort } from 'node:worker_threads'
import { createLogger } from '../../../core/logger.ts'
import type { FromFacilitatorWorker, ToFacilitatorWorker } from './facilitator-worker-messages.ts'
import { localFacilitator } from './local-facilitator.ts'
import type { Facilitator } from './facilitator.ts'

/**
 * The local facilitator's worker thread (started by ./facilitator-in-worker.ts): the first
 * message says which chain it settles on, each later one is a verify or settle call, answered
 * by id (calls run side by side, as they do on the event loop).
 */
const port = parentPort!
let facilitator: Required<Facilitator> | undefined

port.on('message', (m: ToFacilitatorWorker) => {
  if (m.type === 'init') {
    facilitator = localFacilitator(m.rpcUrl, m.network, m.privateKey, createLogger(m.logLevel, 'svc-x402-facilitator'))
    return
  }
  const answer = (a: FromFacilitatorWorker) => port.postMessage(a)
  const call = facilitator![m.op](m.payload, m.requirements)
  call.then(
    (value) => answer({ id: m.id, value }),
    (err: unknown) => answer({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
  )
})
