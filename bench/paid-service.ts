import { ExactEvmScheme } from '@x402/evm/exact/client'
import { x402Client } from '@x402/fetch'
import { PAYMENT_NETWORK } from '../core/payment-terms.ts'
import { startPaymentsChain } from '../infra/payments-chain/chain.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../test/setup/embedded.ts'

/**
 * An embedded service listening on a free port, with x402 payments settled on a local hardhat
 * payments chain, `blocks` simulated blocks ingested and a `founders` key issued: what the
 * access and load benchmarks call.
 */
export async function startPaidService(blocks: number) {
  const chain = await startPaymentsChain()
  let env: Embedded | undefined
  const close = async () => {
    await env?.close()
    await chain.stop()
  }
  try {
    env = await startEmbedded({ LOG_LEVEL: 'warn', X402_PAY_TO: chain.node.accounts[1]!, X402_NETWORK_RPC_URL: chain.node.rpcUrl, X402_ASSET: chain.usdc })
    await env.ingestThrough(blocks)
    const base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    const issued = await fetch(`${base}/admin/keys`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ plan: 'founders' }) })
    const { key } = (await issued.json()) as { key: string }
    /** The official x402 client paying from the chain's account `index` in its USDC. */
    const payer = (index: number) =>
      x402Client.fromConfig({
        schemes: [{ network: PAYMENT_NETWORK, client: new ExactEvmScheme(chain.signer(index)) }],
        spendControls: { allowedAssets: [{ network: PAYMENT_NETWORK, asset: chain.usdc }] },
      })
    return { chain, env, base, admin, key, payer, close }
  } catch (err) {
    await close()
    throw err
  }
}
