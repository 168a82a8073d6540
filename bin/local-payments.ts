import { loadConfig, type Config } from '../core/config.ts'
import type { Logger } from '../core/logger.ts'
import { PAYMENT_NETWORK } from '../core/payment-terms.ts'
import type { Faucet } from '../api/deps.ts'
import { startPaymentsChain, type PaymentsChain } from '../infra/payments-chain/chain.ts'

/**
 * `svc start`'s local payments chain, so a developer can pay for calls without a real network:
 * the Hardhat node with our test USDC (infra/payments-chain), the local facilitator settling on
 * it, pay-to defaulting to the chain's second dev account, and a faucet for POST /admin/faucet.
 */
export interface LocalPayments {
  /** The configuration with X402_NETWORK_RPC_URL, X402_ASSET and X402_PAY_TO filled in. */
  config: Config
  /** Those variables, for a process started with the same configuration (svc start's API process). */
  env: Record<string, string>
  faucet: Faucet
  stop(): Promise<void>
}

/**
 * Start the chain when the configuration asks for it (the default of `svc start`), without
 * waiting: it starts beside the engine and its migrations (about 1.4 s of a start). Undefined when
 * it is off; a failure to start is the promise's value, told by startLocalPayments.
 */
export function startLocalChain(config: Config): LocalChainStart | undefined {
  if (!config.localPaymentsChainOn) return undefined
  const started = Date.now()
  const chain = startPaymentsChain({ fund: [] }).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))))
  return { started, chain, stop: async () => { const c = await chain; if (!(c instanceof Error)) await c.stop() } }
}

export interface LocalChainStart {
  started: number
  chain: Promise<PaymentsChain | Error>
  /** Stops the chain once started (when the service fails to start after it). */
  stop(): Promise<void>
}

/** The started chain as the service's payments: undefined when it is off or failed to start. */
export async function startLocalPayments(start: LocalChainStart | undefined, config: Config, env: Record<string, string | undefined>, logger: Logger): Promise<LocalPayments | undefined> {
  if (!start) return undefined
  const { started } = start
  const chain = await start.chain
  if (chain instanceof Error) {
    // The data service still runs; paid calls fail closed (402 without payment options).
    logger.error({ err: chain }, 'the local payments chain did not start: paid calls need a key until it does (X402_LOCAL_CHAIN=off skips it)')
    return undefined
  }
  const payTo = config.X402_PAY_TO ?? chain.signer(1).address
  const filled = { X402_NETWORK_RPC_URL: chain.node.rpcUrl, X402_ASSET: chain.usdc, X402_PAY_TO: payTo, X402_LOCAL_CHAIN: 'on' }
  const local = loadConfig({ ...env, ...filled })
  logger.info(
    { rpcUrl: chain.node.rpcUrl, network: PAYMENT_NETWORK, asset: chain.usdc, payTo, ms: Date.now() - started },
    'local payments chain ready: test USDC from POST /admin/faucet, pay with `svc pay`',
  )
  return {
    config: local,
    env: filled,
    faucet: {
      network: PAYMENT_NETWORK,
      asset: chain.usdc.toLowerCase(),
      rpcUrl: chain.node.rpcUrl,
      mint: (to, atomic) => chain.mint(to as `0x${string}`, atomic),
    },
    stop: () => chain.stop(),
  }
}
