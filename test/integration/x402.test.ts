import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { x402Client, wrapFetchWithPayment } from '@x402/fetch'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { getAddress, type Address, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createAccessGate } from '../../api/access/gate.ts'
import { x402PaymentMethod } from '../../api/access/x402/method.ts'
import { createX402Payments } from '../../api/access/x402/payments.ts'
import { buildApp } from '../../api/app.ts'
import { catalog } from '../../api/catalog/index.ts'
import { priceOf, usdToAtomic } from '../../api/catalog/pricing.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ServedEndpoint } from '../../core/endpoint/deps.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { startPaymentsChain, type PaymentsChain } from '../../infra/payments-chain/chain.ts'
import { verdictEndpoint } from '../../products/verdict/verdict-endpoint.ts'
import { freePort } from '../setup/svc-process.ts'

/**
 * x402 v2 end to end: the official @x402/fetch client pays our API, which verifies with the
 * SDK's local facilitator and settles on a Hardhat chain (id 8453) holding our EIP-3009 test
 * USDC, through the production access gate with x402 as its payment method.
 */

const NETWORK = 'eip155:8453'
const TOKEN_PATH = '/token/0x00000000000000000000000000000000000000aa'
const PRICE = '0.01'
const AMOUNT = BigInt(usdToAtomic(PRICE))

// Test-only paid endpoints: one whose handler fails, one that spends the payer's USDC while it
// runs (so the settlement that follows must fail).
let drain: ((payer: Address) => Promise<void>) | undefined
const boom = defineEndpoint()({
  method: 'GET', path: '/test/x402/boom', summary: 'fails', description: 'A paid handler that throws.', tags: [],
  response: z.object({ ok: z.boolean() }), access: { kind: 'paid', price: PRICE },
  handler: async () => {
    throw new Error('handler failed on purpose')
  },
})
const secret = defineEndpoint()({
  method: 'GET', path: '/test/x402/secret', summary: 'drains', description: 'A paid handler that empties the payer first.', tags: [],
  response: z.object({ secret: z.string() }), access: { kind: 'paid', price: PRICE },
  handler: async ({ request }) => {
    await drain!(String(request.headers['x-test-payer']) as Address)
    return { secret: 'paid data' }
  },
})

let chain: PaymentsChain
let env: Embedded
let app: FastifyInstance
let base: string
let payTo: Address
const timings: Record<string, number> = {}

beforeAll(async () => {
  let t = Date.now()
  chain = await startPaymentsChain()
  timings.chain = Date.now() - t
  payTo = chain.node.accounts[1]!
  t = Date.now()
  env = await startEmbedded({ X402_PAY_TO: payTo, X402_NETWORK_RPC_URL: chain.node.rpcUrl, X402_ASSET: chain.usdc })
  await env.ingestThrough(20)
  timings.embedded = Date.now() - t
  const started = await startEmbeddedApp({})
  app = started.app
  base = started.base
  drain = async (payer) => {
    const balance = await chain.balanceOf(payer)
    const hash = await chain.node.client.writeContract({
      address: chain.usdc, abi: chain.usdcAbi, functionName: 'transfer', args: [chain.node.accounts[0]!, balance], account: payer, chain: chain.node.chain,
    })
    await chain.node.client.waitForTransactionReceipt({ hash })
  }
})

/** The API over the embedded service with x402 as the payment method; `overrides` change its configuration. */
async function startEmbeddedApp(overrides: { X402_FACILITATOR_PRIVATE_KEY?: string; X402_NETWORK_RPC_URL?: string }) {
  const p = createX402Payments({ config: { ...env.rt.config, ...overrides }, store: env.rt.store, logger: env.rt.logger, metrics: env.rt.metrics })
  const a = await buildApp({
    deps: env.api.deps,
    gate: createAccessGate({ adminToken: TEST_ADMIN_TOKEN, store: env.rt.store, keys: env.api.deps.keys, payments: x402PaymentMethod(p) }),
    catalog: [...catalog, boom as unknown as ServedEndpoint, secret as unknown as ServedEndpoint],
  })
  await a.listen({ host: '127.0.0.1', port: 0 })
  return { app: a, base: `http://127.0.0.1:${(a.server.address() as AddressInfo).port}`, close: () => a.close() }
}

afterAll(async () => {
  await app?.close()
  await env?.close()
  await chain?.stop()
  console.log('x402 test timings (ms):', timings)
})

/** The official client, allowed to pay our test token (not one of the SDK's known assets). */
function payingClient(signer: LocalAccount) {
  return x402Client.fromConfig({
    schemes: [{ network: NETWORK, client: new ExactEvmScheme(signer) }],
    spendControls: { allowedAssets: [{ network: NETWORK, asset: chain.usdc }] },
  })
}

/** fetch with payment, recording the payment headers it sent. */
function payingFetch(signer: LocalAccount) {
  const sent: string[] = []
  const recording: typeof fetch = async (input, init) => {
    const req = new Request(input, init)
    const sig = req.headers.get('payment-signature')
    if (sig) sent.push(sig)
    return fetch(req)
  }
  return { fetch: wrapFetchWithPayment(recording, payingClient(signer)), sent }
}

async function requirementsOf(path: string): Promise<PaymentRequired> {
  const res = await fetch(base + path)
  expect(res.status).toBe(402)
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!)
}

/** Sign a payment for altered requirements with the SDK's own client scheme. */
async function paymentFor(signer: LocalAccount, path: string, alter: (r: PaymentRequirements) => PaymentRequirements = (r) => r): Promise<string> {
  const required = await requirementsOf(path)
  const changed = { ...required, accepts: required.accepts.map(alter) }
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(signer) }], spendControls: false })
  const payload: PaymentPayload = await client.createPaymentPayload(changed)
  return encodePaymentSignatureHeader(payload)
}

async function send(path: string, headers: Record<string, string>) {
  const res = await fetch(base + path, { headers })
  const body = (await res.json()) as { error?: { code: string; details?: PaymentRequired & Record<string, unknown> } }
  return { status: res.status, headers: res.headers, body }
}

/** The facilitator's calls so far, by step (its duration histogram's counts). */
async function facilitatorCalls(at = base) {
  const text = await (await fetch(`${at}/metrics`)).text()
  const count = (step: string) => Number(new RegExp(`^svc_x402_facilitator_duration_seconds_count\\{step="${step}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0)
  return { verify: count('verify'), settle: count('settle'), verifyAndSettle: count('verify_and_settle') }
}

/** `/token/{address}` for an address whose answer memory holds (the kept path of invokeGated). */
async function keptTokenPath(address: string): Promise<string> {
  await env.api.deps.tokens.token(address)
  expect(env.api.deps.tokens.keptToken(address)).toBeDefined()
  return `/token/${address}`
}

/** Transactions the facilitator's account (the node's first) has sent. */
const facilitatorSends = () => chain.node.client.getTransactionCount({ address: chain.node.accounts[0]! })

/** A TCP forwarder to the payments chain, to take the facilitator's node away and bring it back. */
function forwarderToChain() {
  const to = new URL(chain.node.rpcUrl)
  const open = new Set<Socket>()
  const server = createTcpServer((client) => {
    const upstream = connect(Number(to.port), to.hostname)
    for (const s of [client, upstream]) {
      open.add(s)
      s.on('error', () => s.destroy()).on('close', () => {
        open.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  return {
    listen: (port: number) => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    // The facilitator keeps its connection alive: it is cut, not waited for.
    close: () => {
      for (const s of open) s.destroy()
      return new Promise((r) => server.close(r))
    },
  }
}

describe('x402 v2 payments', () => {
  it('answers 402 with PAYMENT-REQUIRED (and the same object in the body) when no payment is presented', async () => {
    const res = await fetch(base + TOKEN_PATH)
    expect(res.status).toBe(402)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!)
    expect(required.x402Version).toBe(2)
    expect(required.resource.url).toBe(base + TOKEN_PATH) // the URL that was called
    expect(required.accepts).toEqual([
      {
        scheme: 'exact',
        network: NETWORK,
        asset: getAddress(chain.usdc),
        amount: AMOUNT.toString(),
        payTo: getAddress(payTo),
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      },
    ])
    const body = (await res.json()) as { error: { code: string; details: unknown } }
    expect(body.error.code).toBe('payment_required')
    expect(body.error.details).toEqual(required)
  })

  it('serves a paid call to the official client and moves exactly the price on chain', async () => {
    const payer = chain.signer(2)
    const before = { payTo: await chain.balanceOf(payTo), payer: await chain.balanceOf(payer.address) }
    const t = Date.now()
    const { fetch: pay, sent } = payingFetch(payer)
    const res = await pay(base + TOKEN_PATH)
    timings.paidCall = Date.now() - t
    expect(res.status).toBe(200)
    expect(sent).toHaveLength(1)
    const body = (await res.json()) as { data: { found: boolean } }
    expect(body.data).toBeDefined()
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    expect(settled.success).toBe(true)
    expect(settled.network).toBe(NETWORK)
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(getAddress(settled.payer!)).toBe(payer.address)
    const receipt = await chain.node.client.getTransactionReceipt({ hash: settled.transaction as `0x${string}` })
    expect(receipt.status).toBe('success')
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + AMOUNT)
    expect(await chain.balanceOf(payer.address)).toBe(before.payer - AMOUNT)

    // The same authorization again, in either header: refused, nothing moves.
    for (const name of ['PAYMENT-SIGNATURE', 'X-Payment']) {
      const again = await send(TOKEN_PATH, { [name]: sent[0]! })
      expect(again.status).toBe(402)
      expect(again.body.error?.details?.error).toBe('replayed')
      expect(decodePaymentRequiredHeader(again.headers.get('payment-required')!).error).toBe('replayed')
    }
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + AMOUNT)
    // The operators see the outcomes and the facilitator's time.
    const metrics = await (await fetch(`${base}/metrics`)).text()
    expect(metrics).toMatch(/^svc_x402_payments_total\{step="verify",outcome="valid"\} [1-9]/m)
    expect(metrics).toMatch(/^svc_x402_payments_total\{step="settle",outcome="settled"\} [1-9]/m)
    expect(metrics).toMatch(/^svc_x402_payments_total\{step="verify",outcome="replayed"\} [2-9]/m)
    expect(metrics).toMatch(/^svc_x402_facilitator_duration_seconds_count\{step="settle"\} [1-9]/m)
  })

  it('keeps the chain on the wall clock through a burst of transactions, so a payment signed after it is still served', async () => {
    // A block per transaction (automine): 400 of them in a few seconds, as 400 paid calls settle.
    const [from, to] = [chain.node.accounts[5]!, chain.node.accounts[6]!]
    for (let i = 0; i < 400; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => chain.node.client.sendTransaction({ account: from, to, value: 1n, chain: chain.node.chain })))
    }
    const latest = await chain.node.client.getBlock()
    // With a second per block the chain's clock would now be about 400 s ahead, past the 300 s an
    // authorization is valid: the facilitator's simulation would refuse every new payment as expired.
    expect(Number(latest.timestamp) - Date.now() / 1000).toBeLessThan(5)
    const { fetch: pay } = payingFetch(chain.signer(4))
    const res = await pay(base + TOKEN_PATH)
    expect(res.status, await res.clone().text()).toBe(200)
  })

  it('accepts the legacy X-Payment header', async () => {
    const payer = chain.signer(3)
    const before = await chain.balanceOf(payTo)
    const header = await paymentFor(payer, TOKEN_PATH)
    const res = await send(TOKEN_PATH, { 'X-Payment': header })
    expect(res.status).toBe(200)
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!).success).toBe(true)
    expect(await chain.balanceOf(payTo)).toBe(before + AMOUNT)
  })

  it('serves exactly one of two identical payments sent at the same moment', async () => {
    const payer = chain.signer(4)
    const before = await chain.balanceOf(payTo)
    const header = await paymentFor(payer, TOKEN_PATH)
    const results = await Promise.all([send(TOKEN_PATH, { 'PAYMENT-SIGNATURE': header }), send(TOKEN_PATH, { 'PAYMENT-SIGNATURE': header })])
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 402])
    expect(results.find((r) => r.status === 402)!.body.error?.details?.error).toBe('replayed')
    expect(await chain.balanceOf(payTo)).toBe(before + AMOUNT)
  })

  it.each([
    ['underpaid', (r: PaymentRequirements) => ({ ...r, amount: (AMOUNT - 1n).toString() })],
    ['wrong_network', (r: PaymentRequirements) => ({ ...r, network: 'eip155:84532' as PaymentRequirements['network'] })],
    ['wrong_asset', (r: PaymentRequirements) => ({ ...r, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' })],
    ['wrong_pay_to', (r: PaymentRequirements) => ({ ...r, payTo: chain.node.accounts[7]! })],
    ['expired', (r: PaymentRequirements) => ({ ...r, maxTimeoutSeconds: -60 })],
  ])('refuses a payment that is %s, naming the reason, and moves nothing', async (reason, alter) => {
    const payer = chain.signer(5)
    const before = { payTo: await chain.balanceOf(payTo), payer: await chain.balanceOf(payer.address) }
    const header = await paymentFor(payer, TOKEN_PATH, alter)
    const res = await send(TOKEN_PATH, { 'PAYMENT-SIGNATURE': header })
    expect(res.status).toBe(402)
    expect(res.body.error?.code).toBe('payment_required')
    expect(res.body.error?.details?.error).toBe(reason)
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(reason)
    expect(await chain.balanceOf(payTo)).toBe(before.payTo)
    expect(await chain.balanceOf(payer.address)).toBe(before.payer)
  })

  it('refuses a payment signed by someone else than the payer it names', async () => {
    const header = await paymentFor(chain.signer(5), TOKEN_PATH)
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { payload: { authorization: { from: string } } }
    payload.payload.authorization.from = chain.signer(6).address
    const forged = Buffer.from(JSON.stringify(payload)).toString('base64')
    const res = await send(TOKEN_PATH, { 'PAYMENT-SIGNATURE': forged })
    expect(res.status).toBe(402)
    expect(res.body.error?.details?.error).toBe('invalid_signature')
  })

  it('does not charge a call whose handler fails', async () => {
    const payer = chain.signer(6)
    const before = { payTo: await chain.balanceOf(payTo), payer: await chain.balanceOf(payer.address) }
    const { fetch: pay } = payingFetch(payer)
    const res = await pay(base + boom.path)
    expect(res.status).toBe(500)
    expect(res.headers.get('payment-response')).toBeNull()
    expect(await chain.balanceOf(payTo)).toBe(before.payTo)
    expect(await chain.balanceOf(payer.address)).toBe(before.payer)
  })

  it('serves nothing when the settlement fails', async () => {
    const payer = chain.signer(8)
    const before = await chain.balanceOf(payTo)
    const header = await paymentFor(payer, secret.path)
    const res = await fetch(base + secret.path, { headers: { 'PAYMENT-SIGNATURE': header, 'x-test-payer': payer.address } })
    const text = await res.text()
    expect(res.status).toBe(402)
    expect(text).not.toContain('paid data')
    expect((JSON.parse(text) as { error: { details: { error: string } } }).error.details.error).toBe('settlement_failed')
    expect(res.headers.get('payment-response')).toBeNull()
    expect(await chain.balanceOf(payTo)).toBe(before)
  })

  it('settles from X402_FACILITATOR_PRIVATE_KEY\'s account when it is set', async () => {
    const settler = chain.signer(9)
    const key = `0x${Buffer.from(settler.getHdKey().privateKey!).toString('hex')}`
    const own = await startEmbeddedApp({ X402_FACILITATOR_PRIVATE_KEY: key })
    try {
      const payer = chain.signer(7)
      const before = await chain.balanceOf(payTo)
      const res = await payingFetch(payer).fetch(own.base + TOKEN_PATH)
      expect(res.status).toBe(200)
      const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!)
      const tx = await chain.node.client.getTransaction({ hash: settled.transaction as `0x${string}` })
      expect(getAddress(tx.from)).toBe(settler.address)
      expect(await chain.balanceOf(payTo)).toBe(before + AMOUNT)
    } finally {
      await own.close()
    }
  })

  it('settles a payment for an answer memory holds with one facilitator call that verifies it too; one that must be read is verified first', async () => {
    const address = '0x00000000000000000000000000000000000000bb'
    const payer = chain.signer(2)
    const before = await chain.balanceOf(payTo)
    expect(env.api.deps.tokens.keptToken(address)).toBeUndefined()
    const calls0 = await facilitatorCalls()
    const read = await send(`/token/${address}`, { 'PAYMENT-SIGNATURE': await paymentFor(payer, `/token/${address}`) })
    expect(read.status).toBe(200)
    const calls1 = await facilitatorCalls()
    expect(calls1).toEqual({ verify: calls0.verify + 1, settle: calls0.settle + 1, verifyAndSettle: calls0.verifyAndSettle })
    const path = await keptTokenPath(address)
    const kept = await send(path, { 'PAYMENT-SIGNATURE': await paymentFor(payer, path) })
    expect(kept.status).toBe(200)
    expect(kept.body).toEqual(read.body)
    const settled = decodePaymentResponseHeader(kept.headers.get('payment-response')!)
    expect(settled.success).toBe(true)
    expect((await chain.node.client.getTransactionReceipt({ hash: settled.transaction as `0x${string}` })).status).toBe('success')
    expect(await facilitatorCalls()).toEqual({ ...calls1, verifyAndSettle: calls1.verifyAndSettle + 1 })
    expect(await chain.balanceOf(payTo)).toBe(before + 2n * AMOUNT)
  })

  it('settles a paid /verdict whose answer memory holds with one facilitator call as well', async () => {
    const address = '0x00000000000000000000000000000000000000be'
    await keptTokenPath(address)
    const path = `/verdict/${address}`
    const before = await chain.balanceOf(payTo)
    const calls = await facilitatorCalls()
    const res = await send(path, { 'PAYMENT-SIGNATURE': await paymentFor(chain.signer(2), path) })
    expect(res.status).toBe(200)
    expect(await facilitatorCalls()).toEqual({ ...calls, verifyAndSettle: calls.verifyAndSettle + 1 })
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(usdToAtomic(priceOf(verdictEndpoint.access, {})!)))
  })

  it('refuses, with its reason and no transaction, a payment that one call cannot settle, and takes the same payment once it can', async () => {
    const path = await keptTokenPath('0x00000000000000000000000000000000000000bc')
    const broke = privateKeyToAccount(generatePrivateKey())
    const header = await paymentFor(broke, path)
    const before = { payTo: await chain.balanceOf(payTo), sends: await facilitatorSends() }
    const refused = await send(path, { 'PAYMENT-SIGNATURE': header })
    expect(refused.status).toBe(402)
    expect(refused.body.error?.details?.error).toBe('insufficient_funds')
    expect(await facilitatorSends()).toBe(before.sends)
    // A forged payer on the same path: the signature, refused before the chain is asked to move anything.
    const forged = JSON.parse(Buffer.from(await paymentFor(chain.signer(5), path), 'base64').toString('utf8')) as { payload: { authorization: { from: string } } }
    forged.payload.authorization.from = chain.signer(6).address
    const notTheirs = await send(path, { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(forged)).toString('base64') })
    expect(notTheirs.body.error?.details?.error).toBe('invalid_signature')
    expect(await facilitatorSends()).toBe(before.sends)
    // Funded now, the same authorization (never spent) is taken, once.
    await chain.mint(broke.address, AMOUNT)
    const paid = await send(path, { 'PAYMENT-SIGNATURE': header })
    expect(paid.status).toBe(200)
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + AMOUNT)
    const again = await send(path, { 'PAYMENT-SIGNATURE': header })
    expect(again.body.error?.details?.error).toBe('replayed')
  })

  it('answers 503 at once while the facilitator cannot reach its chain, and takes the same payment once it can', async () => {
    const port = await freePort()
    const own = await startEmbeddedApp({ X402_NETWORK_RPC_URL: `http://127.0.0.1:${port}` })
    const forwarder = forwarderToChain()
    try {
      const path = await keptTokenPath('0x00000000000000000000000000000000000000bd')
      const header = await paymentFor(chain.signer(3), path)
      const before = await chain.balanceOf(payTo)
      const t = Date.now()
      const down = await fetch(own.base + path, { headers: { 'PAYMENT-SIGNATURE': header } })
      expect(down.status).toBe(503)
      expect(((await down.json()) as { error: { code: string } }).error.code).toBe('dependency_unavailable')
      expect(Date.now() - t).toBeLessThan(5_000)
      expect(await chain.balanceOf(payTo)).toBe(before)
      await forwarder.listen(port)
      const back = await fetch(own.base + path, { headers: { 'PAYMENT-SIGNATURE': header } })
      expect(back.status, await back.clone().text()).toBe(200)
      expect(decodePaymentResponseHeader(back.headers.get('payment-response')!).success).toBe(true)
      expect(await chain.balanceOf(payTo)).toBe(before + AMOUNT)
    } finally {
      await own.close()
      await forwarder.close()
    }
  })

  it('has no faucet unless it runs the local payments chain', async () => {
    const res = await app.inject({ method: 'POST', url: '/admin/faucet', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, payload: { address: payTo, amount: '1' } })
    expect(res.statusCode).toBe(404)
    expect(res.json().error.message).toContain('local payments chain')
  })
})
