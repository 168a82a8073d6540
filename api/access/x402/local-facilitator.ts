import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import { createPublicClient, createWalletClient, defineChain, type Account, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Logger } from '../../../core/logger.ts'
import type { Facilitator } from './facilitator.ts'
import { recentCode } from './recent-code.ts'
import { jsonRpcTransport } from './json-rpc-transport.ts'
import { keyedSerializer } from '../../../core/serialized.ts'

/** How long a payer's code, once read, is taken as known (./recent-code.ts says why that is safe). */
const CODE_KEPT_MS = 5_000
const CODE_KEPT_ADDRESSES = 10_000
/** A request to the chain not answered within this fails the call (the API answers 503). */
const RPC_TIMEOUT_MS = 30_000
/** The largest answer taken from the chain: a receipt or a call's result is a few kilobytes. */
const RPC_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

/**
 * The local facilitator: the SDK's `x402Facilitator` with the exact EVM scheme, settling on the
 * chain at `rpcUrl` from `privateKey`'s account, or without it from the node's first account
 * (`eth_accounts`: an account the node signs for, as on the local payments chain). Its work is
 * mostly signature recovery in JavaScript (a few ms a call): it runs in a worker thread
 * (./facilitator-in-worker.ts), not on the API's event loop.
 */
export function localFacilitator(rpcUrl: string, network: string, privateKey: Hex | undefined, logger: Logger): Required<Facilitator> {
  let ready: Promise<{ afterVerify: x402Facilitator; whole: x402Facilitator }> | undefined
  const sends = keyedSerializer()
  const build = async () => {
    const chainId = Number(network.split(':')[1])
    const chain = defineChain({
      id: chainId,
      name: `x402-${chainId}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    })
    const transport = jsonRpcTransport(rpcUrl, { timeoutMs: RPC_TIMEOUT_MS, maxResponseBytes: RPC_MAX_RESPONSE_BYTES })
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 100, cacheTime: 0 })
    let account: Account | Address
    if (privateKey) {
      account = privateKeyToAccount(privateKey)
    } else {
      const [first] = (await publicClient.request({ method: 'eth_accounts' } as never)) as Address[]
      if (!first) throw new Error(`the node at ${rpcUrl} has no account to settle payments from; set X402_FACILITATOR_PRIVATE_KEY`)
      account = first
    }
    const address = typeof account === 'string' ? account : account.address
    // The node's chain is checked once here, so a send from an account the node signs for need
    // not ask again (viem asks the node on each such send made with a chain: a request per paid
    // call). A local account signs with the chain's id and asks nothing either way.
    const nodeChainId = await publicClient.getChainId()
    if (nodeChainId !== chainId) throw new Error(`the node at ${rpcUrl} is on chain ${nodeChainId}, not ${chainId} (${network})`)
    const sendOn = typeof account === 'string' ? { chain: null } : {}
    const wallet = createWalletClient({ chain, transport, account })
    // A local key's send reads its nonce from the chain (the pending count) and signs with it, so
    // two at once take the same nonce and one fails: its sends go one at a time (each returns
    // once the node has the transaction; receipts are awaited side by side). A nonce counted
    // here instead would skip one for good when a send fails after taking it. The node assigns
    // the nonces of an account it signs for as each send arrives.
    const inTurn = typeof account === 'string' ? <T>(send: () => Promise<T>) => send() : <T>(send: () => Promise<T>) => sends(address, send)
    const getCode = recentCode((args) => publicClient.getCode(args), CODE_KEPT_MS, CODE_KEPT_ADDRESSES)
    const signer = toFacilitatorEvmSigner(
      {
        address,
        readContract: (args) => publicClient.readContract(args as never),
        verifyTypedData: (args) => publicClient.verifyTypedData(args as never),
        writeContract: (args) => inTurn(() => wallet.writeContract({ ...args, ...sendOn } as never)),
        sendTransaction: (args) => inTurn(() => wallet.sendTransaction({ ...args, ...sendOn } as never)),
        waitForTransactionReceipt: (args) => publicClient.waitForTransactionReceipt(args),
        getCode,
      },
      { confirmationTimeoutMs: 60_000 },
    )
    const networks = network as `${string}:${string}`
    // Two facilitators on one signer: `afterVerify` settles a payment verify has passed (its
    // settle checks the signature again but does not simulate the transfer); `whole` settles one
    // nothing has verified, simulating the transfer first as verify does, so a payment that would
    // revert is refused without a transaction (and without gas spent on it).
    const afterVerify = registerExactEvmScheme(new x402Facilitator(), { signer, networks })
    const whole = registerExactEvmScheme(new x402Facilitator(), { signer, networks, simulateInSettle: true })
    logger.info({ rpcUrl, network, account: address }, 'x402 local facilitator ready')
    return { afterVerify, whole }
  }
  const get = () => {
    ready ??= build().catch((error: unknown) => {
      ready = undefined
      throw error
    })
    return ready
  }
  return {
    verify: async (payload, requirements) => (await get()).afterVerify.verify(payload, requirements),
    settle: async (payload, requirements) => (await get()).afterVerify.settle(payload, requirements),
    verifyAndSettle: async (payload, requirements) => (await get()).whole.settle(payload, requirements),
  }
}
