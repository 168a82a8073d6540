import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { localFacilitatorInWorker } from '../../api/access/x402/facilitator-in-worker.ts'
import { PAYMENT_NETWORK } from '../../core/payment-terms.ts'

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

const payload = { x402Version: 2, accepted: {}, payload: {} } as unknown as PaymentPayload
const requirements = { scheme: 'exact', network: PAYMENT_NETWORK } as unknown as PaymentRequirements

describe('the local x402 facilitator in a worker thread', () => {
  it("answers each call from the worker: a chain it cannot reach fails the call with the facilitator's own error, and the worker serves the next", { timeout: 60_000 }, async () => {
    const facilitator = localFacilitatorInWorker({ rpcUrl: `http://127.0.0.1:${await closedPort()}`, network: PAYMENT_NETWORK, privateKey: undefined, logLevel: 'silent' })
    // Without a private key it asks the node for its first account: the node is not there.
    await expect(facilitator.verify(payload, requirements)).rejects.toThrow(/ECONNREFUSED/)
    // Calls side by side, each answered by its id.
    const both = await Promise.allSettled([facilitator.verify(payload, requirements), facilitator.settle(payload, requirements)])
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    for (const r of both) expect(String((r as PromiseRejectedResult).reason)).toMatch(/ECONNREFUSED/)
  })
})
