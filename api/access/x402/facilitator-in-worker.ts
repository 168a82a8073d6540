import { Worker } from 'node:worker_threads'
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import type { Hex } from 'viem'
import type { FacilitatorOp, FromFacilitatorWorker, ToFacilitatorWorker } from './facilitator-worker-messages.ts'
import type { Facilitator } from './facilitator.ts'

/**
 * The local facilitator (./local-facilitator.ts) in a worker thread of the API process. Its
 * verification and settlement recover secp256k1 signatures in JavaScript, 2-9 ms of CPU each
 * call, several a payment: on the event loop, 38 paid calls a second held the API's core at 100%
 * and every other caller queued behind them (`npm run bench -- load`, stop 57). The worker
 * boots at once (the TypeScript loader and the SDK: about 1.4 s on stop 57's machine as an ES
 * module, 0.3 s here as CommonJS, ./facilitator-worker-boot.cjs; booted at the first call, it held
 * the first paid calls that long) and is held only while calls are in flight (it never keeps
 * the process alive); one that dies fails its calls, as a facilitator that does not answer, and
 * the next call starts another.
 */
export function localFacilitatorInWorker(init: { rpcUrl: string; network: string; privateKey: Hex | undefined; logLevel: string }): Required<Facilitator> {
  let worker: Worker | undefined
  let nextId = 0
  const pending = new Map<number, { resolve(v: VerifyResponse | SettleResponse): void; reject(e: Error): void }>()

  function started(): Worker {
    if (worker) return worker
    const w = new Worker(new URL('./facilitator-worker-boot.cjs', import.meta.url))
    w.unref()
    w.postMessage({ type: 'init', ...init } satisfies ToFacilitatorWorker)
    w.on('message', (a: FromFacilitatorWorker) => {
      const p = pending.get(a.id)
      if (!p) return
      pending.delete(a.id)
      if (pending.size === 0) w.unref()
      if ('error' in a) p.reject(new Error(a.error))
      else p.resolve(a.value)
    })
    const lost = (why: string) => {
      if (worker !== w) return
      worker = undefined
      for (const p of pending.values()) p.reject(new Error(`the local x402 facilitator's worker stopped: ${why}`))
      pending.clear()
    }
    w.on('error', (err) => lost(err.message))
    w.on('exit', (code) => lost(`exit code ${code}`))
    return (worker = w)
  }

  function call<T extends VerifyResponse | SettleResponse>(op: FacilitatorOp, payload: PaymentPayload, requirements: PaymentRequirements): Promise<T> {
    const w = started()
    const id = ++nextId
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: VerifyResponse | SettleResponse) => void, reject })
      w.ref()
      w.postMessage({ type: 'call', id, op, payload, requirements } satisfies ToFacilitatorWorker)
    })
  }

  started()
  return {
    verify: (payload, requirements) => call<VerifyResponse>('verify', payload, requirements),
    settle: (payload, requirements) => call<SettleResponse>('settle', payload, requirements),
    verifyAndSettle: (payload, requirements) => call<SettleResponse>('verifyAndSettle', payload, requirements),
  }
}
