import type { PaymentMethod } from '../gate.ts'
import type { X402Payments } from './payments.ts'

/** x402 as the gate's per-call payment method; the resource is the URL that was called. */
export function x402PaymentMethod(payments: X402Payments): PaymentMethod {
  return {
    admit: (endpoint, price, request, verifyLater) => payments.admit(endpoint, price, request, request.url ?? endpoint.path, verifyLater),
    required: (endpoint, price, request) => payments.paymentRequiredError(endpoint, price, request.url ?? endpoint.path),
  }
}
