import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { mnemonicToAccount } from 'viem/accounts'
import type { Abi, Address, Hex, LocalAccount } from 'viem'
import { startHardhatNode, type HardhatNode } from './hardhat.ts'

/**
 * The local payments chain for the x402 tests: a Hardhat node reporting chain id 8453 (so the
 * network is eip155:8453 as in production), our EIP-3009 test USDC (`payments-chain/USDC.sol`,
 * compiled here with the `solc` package) deployed and minted to the test accounts, and a
 * `tryAggregate` contract at Multicall3's standard address so the facilitator can name the
 * reason a payment would fail.
 */

export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

export interface Compiled {
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

const require = createRequire(import.meta.url)
const sourcePath = fileURLToPath(new URL('./payments-chain/USDC.sol', import.meta.url))
let compiled: Record<string, Compiled> | undefined

/** Compile USDC.sol once per process (solc-js takes a few seconds). */
export function compilePaymentsContracts(): Record<'TestUSDC' | 'TryAggregate', Compiled> {
  if (!compiled) {
    const solc = require('solc') as { compile(input: string): string }
    const input = {
      language: 'Solidity',
      sources: { 'USDC.sol': { content: readFileSync(sourcePath, 'utf8') } },
      settings: {
        optimizer: { enabled: true, runs: 200 },
        evmVersion: 'cancun',
        outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
      },
    }
    const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
      errors?: Array<{ severity: string; formattedMessage: string }>
      contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>
    }
    const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
    if (errors.length) throw new Error(`USDC.sol did not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
    compiled = Object.fromEntries(
      Object.entries(output.contracts['USDC.sol']!).map(([name, c]) => [
        name,
        { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex, deployedBytecode: `0x${c.evm.deployedBytecode.object}` as Hex },
      ]),
    )
  }
  return compiled as Record<'TestUSDC' | 'TryAggregate', Compiled>
}

export interface PaymentsChain {
  node: HardhatNode
  /** The deployed test USDC. */
  usdc: Address
  usdcAbi: Abi
  /** Mnemonic accounts as local signers (they sign EIP-712 themselves), index = mnemonic index. */
  signer(index: number): LocalAccount
  balanceOf(who: Address): Promise<bigint>
  stop(): Promise<void>
}

export interface StartPaymentsChainOptions {
  /** Mnemonic indexes minted `mintAtomic` each (default 1..9). */
  fund?: number[]
  /** USDC base units per funded account (default 1,000 USDC). */
  mintAtomic?: bigint
}

export async function startPaymentsChain(options: StartPaymentsChainOptions = {}): Promise<PaymentsChain> {
  const contracts = compilePaymentsContracts()
  const node = await startHardhatNode({ chainId: 8453, accounts: 10 })
  try {
    const { client } = node
    const deployer = node.accounts[0]!
    await client.request({ method: 'hardhat_setCode', params: [MULTICALL3_ADDRESS, contracts.TryAggregate.deployedBytecode] } as never)
    const hash = await client.deployContract({ abi: contracts.TestUSDC.abi, bytecode: contracts.TestUSDC.bytecode, account: deployer, chain: node.chain })
    const receipt = await client.waitForTransactionReceipt({ hash })
    const usdc = receipt.contractAddress!
    const mintAtomic = options.mintAtomic ?? 1_000_000_000n
    const signer = (index: number) => mnemonicToAccount(TEST_MNEMONIC, { addressIndex: index })
    for (const i of options.fund ?? [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const h = await client.writeContract({ address: usdc, abi: contracts.TestUSDC.abi, functionName: 'mint', args: [signer(i).address, mintAtomic], account: deployer, chain: node.chain })
      await client.waitForTransactionReceipt({ hash: h })
    }
    return {
      node,
      usdc,
      usdcAbi: contracts.TestUSDC.abi,
      signer,
      async balanceOf(who) {
        return (await client.readContract({ address: usdc, abi: contracts.TestUSDC.abi, functionName: 'balanceOf', args: [who] })) as bigint
      },
      stop: () => node.stop(),
    }
  } catch (error) {
    await node.stop()
    throw error
  }
}
