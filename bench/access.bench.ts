import { wrapFetchWithPayment } from '@x402/fetch'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import autocannon from 'autocannon'
import { createX402Payments } from '../api/access/x402/payments.ts'
import { tokenEndpoint } from '../products/token/token-endpoint.ts'
import { startPaidService } from './paid-service.ts'
import type { BenchResult } from './result.ts'

const TOKEN_PATH = `/token/0x${'ab'.repeat(20)}`

async function meanMs(n: number, fn: () => Promise<unknown>): Promise<number> {
  await fn()
  const t = performance.now()
  for (let i = 0; i < n; i++) await fn()
  return (performance.now() - t) / n
}

/**
 * Access costs, in one run, on one app: a call admitted by a subscription key and a call paid
 * over x402 (the official client, a local facilitator settling on a hardhat payments chain),
 * each against the same call admitted by the operator token (no lookup, no payment); and paid
 * calls/s with a key under autocannon against the operator-token baseline.
 */
export async function benchAccess(): Promise<BenchResult[]> {
  const { env, base, admin, key, payer, close } = await startPaidService(50)
  try {
    const get = (headers: Record<string, string>) => async () => {
      const r = await fetch(base + TOKEN_PATH, { headers })
      if (r.status !== 200) throw new Error(`status ${r.status}`)
      await r.arrayBuffer()
    }
    // Both warmed, then measured in alternation (best of three rounds each), so neither gains
    // from running second on a warmer process.
    const byAdmin = get(admin)
    const byKey = get({ 'x-svc-key': key })
    await meanMs(200, byAdmin)
    await meanMs(200, byKey)
    const rounds: Array<[number, number]> = []
    for (let i = 0; i < 3; i++) rounds.push([await meanMs(300, byAdmin), await meanMs(300, byKey)])
    const baselineMs = Math.min(...rounds.map((r) => r[0]))
    const keyMs = Math.min(...rounds.map((r) => r[1]))

    const client = payer(2)
    const pay = wrapFetchWithPayment(fetch, client)
    const paidMs = await meanMs(20, async () => {
      const r = await pay(base + TOKEN_PATH)
      if (r.status !== 200) throw new Error(`paid status ${r.status}: ${await r.text()}`)
      await r.arrayBuffer()
    })

    // Verification alone: our checks, the spent-once claim and the facilitator's verify (signature,
    // balance and nonce read on chain), for payments signed beforehand, never settled.
    const payments = createX402Payments({ config: env.rt.config, store: env.rt.store, logger: env.rt.logger })
    const required = decodePaymentRequiredHeader((await fetch(base + TOKEN_PATH)).headers.get('payment-required')!)
    const signed: string[] = []
    for (let i = 0; i < 41; i++) signed.push(encodePaymentSignatureHeader(await client.createPaymentPayload(required)))
    const verifyMs = await meanMs(40, async () => {
      const grant = await payments.admit(tokenEndpoint, '0.01', { ip: '127.0.0.1', headers: { 'payment-signature': signed.pop()! } }, base + TOKEN_PATH)
      if (!grant) throw new Error('no grant')
    })

    const load = async (headers: Record<string, string>) =>
      (await autocannon({ url: base + TOKEN_PATH, headers, connections: 20, duration: 6 })).requests.average
    const adminRps = await load(admin)
    const keyRps = await load({ 'x-svc-key': key })
    return [
      {
        name: 'access: added latency of a subscription-key check per call',
        baseline: 'the same call admitted by the operator token (no lookup)',
        ours: { value: Math.round(keyMs * 1000) / 1000, unit: 'ms/call' },
        base: { value: Math.round(baselineMs * 1000) / 1000, unit: 'ms/call' },
        ratio: keyMs / baselineMs,
        notes: `added ${(keyMs - baselineMs).toFixed(3)} ms; best of 3 rounds of 300 sequential HTTP calls each, alternating`,
      },
      {
        name: 'access: x402 paid call (402, sign, verify, handler, settle on chain) per call',
        baseline: 'the same call admitted by the operator token',
        ours: { value: Math.round(paidMs * 10) / 10, unit: 'ms/call' },
        base: { value: Math.round(baselineMs * 1000) / 1000, unit: 'ms/call' },
        ratio: paidMs / baselineMs,
        notes: `added ${(paidMs - baselineMs).toFixed(1)} ms, including the 402 round trip and an on-chain settlement on a local hardhat node; mean of 20`,
      },
      {
        name: 'access: x402 verification per call (our checks, spent-once claim, facilitator verify)',
        baseline: 'the same call admitted by the operator token',
        ours: { value: Math.round(verifyMs * 100) / 100, unit: 'ms/call' },
        base: { value: Math.round(baselineMs * 1000) / 1000, unit: 'ms/call' },
        ratio: verifyMs / baselineMs,
        notes: 'payments signed beforehand and never settled; the facilitator reads the chain over JSON-RPC (local hardhat); mean of 40',
      },
      {
        name: 'access: paid calls/s with a key under load (autocannon, 20 connections, 6 s)',
        baseline: 'the same load admitted by the operator token',
        ours: { value: Math.round(keyRps), unit: 'req/s' },
        base: { value: Math.round(adminRps), unit: 'req/s' },
        ratio: keyRps / adminRps,
      },
    ]
  } finally {
    await close()
  }
}
