import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'

/** The facilitator's side (the SDK's HTTP client and local facilitator both have it). */
export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>
  /** Settle a payment `verify` has passed. */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>
  /**
   * Verify and settle in one call, every check `verify` makes included (the local facilitator's):
   * one signature recovery and one round trip fewer than the two calls. Without it, the two calls.
   */
  verifyAndSettle?(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>
}
