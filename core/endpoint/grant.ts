/**
 * What admitted a call, and how to complete it once the handler has succeeded. Kept apart from
 * the gate so that the catalog's types (which hand the grant to handlers) do not depend on it.
 */
export interface AccessGrant {
  via: 'free' | 'admin' | 'key' | 'payment' | 'free_quota'
  /** USD price this call is charged, or null. */
  price: string | null
  /** The subscription key's hash, when a key admitted the call. */
  keyHash?: string
  plan?: string
  /**
   * Settle the charge; runs only after the handler succeeded, and its failure means no data
   * is served. Returns headers to add to the response (e.g. PAYMENT-RESPONSE).
   */
  settle?(): Promise<Record<string, string>>
  /**
   * Present on a payment admitted before the facilitator verified it (the gate's `verifyLater`):
   * awaited before anything is read for the call. When the answer is at hand without a read,
   * `settle()` alone verifies and settles it, in one facilitator call.
   */
  verify?(): Promise<void>
}
