import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import type { Hex } from 'viem'

/** A call the worker's facilitator answers (./facilitator.ts). */
export type FacilitatorOp = 'verify' | 'settle' | 'verifyAndSettle'

/** What the API tells the local facilitator's worker thread (./facilitator-worker.ts). */
export type ToFacilitatorWorker =
  | { type: 'init'; rpcUrl: string; network: string; privateKey: Hex | undefined; logLevel: string }
  | { type: 'call'; id: number; op: FacilitatorOp; payload: PaymentPayload; requirements: PaymentRequirements }

/** Its answer to a call: the facilitator's response, or the message of what it threw. */
export type FromFacilitatorWorker = { id: number; value: VerifyResponse | SettleResponse } | { id: number; error: string }
