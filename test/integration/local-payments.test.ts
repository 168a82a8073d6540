import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, http, parseAbi, type Address } from 'viem'
import { usdToAtomic } from '../../api/catalog/pricing.ts'
import { freePort, runSvc, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * `npm start` as a developer meets it: `svc start` runs the local payments chain by default,
 * POST /admin/faucet mints test USDC, and `svc pay` (the official x402 client) pays for one call
 * which settles on that chain. Everything here is a real process: svc, Hardhat, the client.
 */

const ADMIN = 'local-payments-admin-token-01'
const dir = tempDir()
let svc: SvcServer
const env = { DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', SIMULATOR_BACKFILL_BLOCKS: '40', KAFKA_BROKERS: '', REDIS_URL: '' }

interface FaucetAnswer { address: string; amount: string; balance: string; transaction: string; asset: Address; network: string; rpc_url: string }

async function faucet(body: unknown, token: string | null = ADMIN): Promise<Response> {
  return fetch(`${svc.base}/admin/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
}

beforeAll(async () => {
  const port = await freePort()
  svc = await startSvcServer(['start'], port, { ...env, PORT: String(port) })
}, 120_000)

afterAll(async () => {
  await svc?.stop()
  dir.cleanup()
})

describe('svc start with the local payments chain', () => {
  it('the faucet mints exact test USDC for the operator only, with clear errors', async () => {
    const who = `0x${'5a'.repeat(20)}`
    expect((await faucet({ address: who, amount: '1000000' }, null)).status).toBe(401)
    expect((await faucet({ address: who, amount: '1000000' }, 'not-the-admin-token-at-all')).status).toBe(403)
    expect((await faucet({ address: '0x12', amount: '1' })).status).toBe(400)
    expect((await faucet({ address: who, amount: '1.5' })).status).toBe(400)
    expect((await faucet({ address: who, amount: '1000000000001' })).status).toBe(400)

    const first = (await (await faucet({ address: who, amount: '1234567' })).json()) as FaucetAnswer
    expect(first).toMatchObject({ address: who, amount: '1234567', balance: '1234567', network: 'eip155:8453' })
    const second = (await (await faucet({ address: who.toUpperCase().replace('0X', '0x'), amount: '1' })).json()) as FaucetAnswer
    expect(second.balance).toBe('1234568')
    // The x402 catalog charges in the asset the faucet mints.
    const catalog = (await (await fetch(`${svc.base}/.well-known/x402`)).json()) as { asset: { address: string }; payTo: string }
    expect(catalog.asset.address).toBe(first.asset)
  })

  it('svc pay funds its wallet, pays for /leaderboard, and the pay-to balance grows by exactly the price', { timeout: 120_000 }, async () => {
    const probe = (await (await faucet({ address: `0x${'00'.repeat(19)}01`, amount: '1' })).json()) as FaucetAnswer
    const chain = createPublicClient({ transport: http(probe.rpc_url) })
    const usdc = parseAbi(['function balanceOf(address) view returns (uint256)'])
    const balanceOf = (who: Address) => chain.readContract({ address: probe.asset, abi: usdc, functionName: 'balanceOf', args: [who] })
    const catalog = (await (await fetch(`${svc.base}/.well-known/x402`)).json()) as { payTo: Address }
    const payToBefore = await balanceOf(catalog.payTo)

    const unpaid = await fetch(`${svc.base}/leaderboard`)
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers.get('payment-required')).toBeTruthy()

    const r = await runSvc(['pay', '/leaderboard', '--fund', '1'], { ...env, PORT: new URL(svc.base).port })
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { status: number; paid: { payer: Address; transaction: string; network: string } | null; body: { data: { deployers: unknown[] } } }
    expect(out.status).toBe(200)
    expect(out.paid?.network).toBe('eip155:8453')
    expect(out.paid?.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(Array.isArray(out.body.data.deployers)).toBe(true)

    const price = BigInt(usdToAtomic('0.01'))
    expect(await balanceOf(catalog.payTo)).toBe(payToBefore + price)
    expect(await balanceOf(out.paid!.payer)).toBe(BigInt(usdToAtomic('1')) - price)
    const receipt = await chain.getTransactionReceipt({ hash: out.paid!.transaction as `0x${string}` })
    expect(receipt.status).toBe('success')
    expect(receipt.to?.toLowerCase()).toBe(probe.asset.toLowerCase())

    // The same development wallet pays again without funding; --max below the price refuses to pay.
    const again = await runSvc(['pay', '/leaderboard'], { ...env, PORT: new URL(svc.base).port })
    expect(again.code, again.stderr).toBe(0)
    expect(await balanceOf(out.paid!.payer)).toBe(BigInt(usdToAtomic('1')) - 2n * price)
    const capped = await runSvc(['pay', '/leaderboard', '--max', '0.005'], { ...env, PORT: new URL(svc.base).port })
    expect(capped.code).not.toBe(0)
    expect(await balanceOf(out.paid!.payer)).toBe(BigInt(usdToAtomic('1')) - 2n * price)
  })

  it('stopping svc stops its payments chain', { timeout: 60_000 }, async () => {
    const probe = (await (await faucet({ address: `0x${'00'.repeat(19)}02`, amount: '1' })).json()) as FaucetAnswer
    await svc.stop()
    await expect(fetch(probe.rpc_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })).rejects.toThrow()
  })
})
