import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { x402Client } from '@x402/fetch'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import type { LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { localFacilitator } from '../../api/access/x402/local-facilitator.ts'
import { localFacilitatorInWorker } from '../../api/access/x402/facilitator-in-worker.ts'
import { usdToAtomic } from '../../api/catalog/pricing.ts'
import { createLogger } from '../../core/logger.ts'
import { PAYMENT_NETWORK, USDC_EIP712, X402_SCHEME } from '../../core/payment-terms.ts'
import { startPaymentsChain, type PaymentsChain } from '../../infra/payments-chain/chain.ts'

/**
 * The local facilitator's conversation with the payments chain, counted by a forwarding proxy in
 * front of a real Hardhat node: what a paid call asks the chain, and that payments still settle.
 */

type RpcCall = { method: string; params?: unknown[] }

let chain: PaymentsChain
let proxy: Server
let proxyUrl: string
/** JSON-RPC calls the facilitator sent through the proxy, in order: method and first parameter. */
const asked: Array<{ method: string; first: unknown }> = []

beforeAll(async () => {
  chain = await startPaymentsChain({ fund: [1] })
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const calls = JSON.parse(body) as RpcCall | RpcCall[]
      for (const c of Array.isArray(calls) ? calls : [calls]) asked.push({ method: c.method, first: c.params?.[0] })
      const answer = await fetch(chain.node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text())
    })
  })
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  await new Promise((r) => proxy?.close(r))
  await chain?.stop()
})

const PRICE_ATOMIC = usdToAtomic('0.01')

function requirementsTo(payTo: string): PaymentRequirements {
  return {
    scheme: X402_SCHEME, network: PAYMENT_NETWORK as PaymentRequirements['network'], asset: chain.usdc, amount: PRICE_ATOMIC,
    payTo, maxTimeoutSeconds: 300, extra: { ...USDC_EIP712 },
  }
}

async function signedPayment(accepted: PaymentRequirements, payer: LocalAccount = chain.signer(1)) {
  const required: PaymentRequired = { x402Version: 2, resource: { url: 'http://localhost/token/0xaa', description: 'a token', mimeType: 'application/json' }, accepts: [accepted] }
  const client = x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(payer) }], spendControls: false })
  return client.createPaymentPayload(required)
}

describe('the local facilitator on the payments chain', () => {
  it("asks the node its chain once, and a payer's code once for payments moments apart; both payments settle for exactly the price", { timeout: 60_000 }, async () => {
    const facilitator = localFacilitator(proxyUrl, PAYMENT_NETWORK, undefined, createLogger('silent', 'test'))
    const payTo = chain.node.accounts[2]!
    const accepted = requirementsTo(payTo)
    const before = await chain.balanceOf(payTo)
    asked.length = 0
    for (let i = 0; i < 2; i++) {
      const payment = await signedPayment(accepted)
      expect((await facilitator.verify(payment, accepted)).isValid).toBe(true)
      const settled = await facilitator.settle(payment, accepted)
      expect(settled.success, settled.errorReason).toBe(true)
    }
    expect(await chain.balanceOf(payTo)).toBe(before + 2n * BigInt(PRICE_ATOMIC))
    const count = (m: string, first?: string) => asked.filter((a) => a.method === m && (first === undefined || String(a.first).toLowerCase() === first.toLowerCase())).length
    expect(count('eth_chainId')).toBe(1)
    // Without the kept answer: twice verifying and twice settling, each payment (8 in all).
    expect(count('eth_getCode', chain.signer(1).address)).toBe(1)
    expect(count('eth_sendTransaction')).toBe(2)
  })

  it("in its worker threads, from a private key's account, settles payments made side by side, each once, and a send that fails takes no nonce from the next", { timeout: 120_000 }, async () => {
    const settler = chain.signer(9)
    const key = `0x${Buffer.from(settler.getHdKey().privateKey!).toString('hex')}` as const
    const facilitator = localFacilitatorInWorker({ rpcUrl: chain.node.rpcUrl, network: PAYMENT_NETWORK, privateKey: key, logLevel: 'silent' })
    const payTo = chain.node.accounts[3]!
    const accepted = requirementsTo(payTo)
    const before = await chain.balanceOf(payTo)
    const payments = await Promise.all(Array.from({ length: 6 }, () => signedPayment(accepted)))
    const verified = await Promise.all(payments.map((p) => facilitator.verify(p, accepted)))
    expect(verified.map((v) => v.isValid)).toEqual(payments.map(() => true))
    const settled = await Promise.all(payments.map((p) => facilitator.settle(p, accepted)))
    expect(settled.map((s) => s.errorReason ?? 'settled')).toEqual(payments.map(() => 'settled'))
    expect(new Set(settled.map((s) => s.transaction)).size).toBe(payments.length)
    for (const s of settled) {
      const tx = await chain.node.client.getTransaction({ hash: s.transaction as `0x${string}` })
      expect(tx.from.toLowerCase()).toBe(settler.address.toLowerCase())
    }
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(payments.length) * BigInt(PRICE_ATOMIC))
    // A send that fails (an authorization already used: its transfer reverts) takes no nonce from the next.
    const again = await facilitator.settle(payments[0]!, accepted)
    expect(again.success).toBe(false)
    const next = await signedPayment(accepted)
    const after = await facilitator.settle(next, accepted)
    expect(after.success, after.errorReason).toBe(true)
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(payments.length + 1) * BigInt(PRICE_ATOMIC))
  })

  it('verifies and settles in one call: the transfer simulated as verify does, one transaction; a payment that would fail sends none', { timeout: 60_000 }, async () => {
    const facilitator = localFacilitator(proxyUrl, PAYMENT_NETWORK, undefined, createLogger('silent', 'test'))
    const payTo = chain.node.accounts[4]!
    const accepted = requirementsTo(payTo)
    const before = await chain.balanceOf(payTo)
    const count = (m: string) => asked.filter((a) => a.method === m).length

    asked.length = 0
    const settled = await facilitator.verifyAndSettle(await signedPayment(accepted), accepted)
    expect(settled.success, settled.errorReason).toBe(true)
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(PRICE_ATOMIC))
    expect(count('eth_call')).toBeGreaterThanOrEqual(1)
    expect(count('eth_sendTransaction')).toBe(1)

    // A payer without the funds: refused on the simulation, with verify's reason; nothing is sent.
    const broke = privateKeyToAccount(generatePrivateKey())
    const unfunded = await signedPayment(accepted, broke)
    asked.length = 0
    const refused = await facilitator.verifyAndSettle(unfunded, accepted)
    expect(refused.success).toBe(false)
    expect(refused.errorReason).toBe((await facilitator.verify(unfunded, accepted)).invalidReason)
    expect(refused.errorReason).toBe('invalid_exact_evm_insufficient_balance')
    // A signature that is not the payer's: refused before any call to the token.
    const forged = await signedPayment(accepted)
    ;(forged.payload as { authorization: { from: string } }).authorization.from = chain.signer(2).address
    const notTheirs = await facilitator.verifyAndSettle(forged, accepted)
    expect(notTheirs.success).toBe(false)
    expect(notTheirs.errorReason).toBe('invalid_exact_evm_signature')
    expect(count('eth_sendTransaction')).toBe(0)
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(PRICE_ATOMIC))
  })

  it('refuses to run against a node on another chain than its network names, saying which', { timeout: 60_000 }, async () => {
    const facilitator = localFacilitator(proxyUrl, 'eip155:84532', undefined, createLogger('silent', 'test'))
    const accepted = { ...requirementsTo(chain.node.accounts[2]!), network: 'eip155:84532' as PaymentRequirements['network'] }
    await expect(facilitator.verify(await signedPayment(accepted), accepted)).rejects.toThrow(/is on chain 8453, not 84532/)
  })
})
