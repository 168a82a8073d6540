import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mnemonicToAccount } from 'viem/accounts'
import type { Abi, Address, Hex } from 'viem'
import type { HDAccount } from 'viem/accounts'
import { PAYMENT_CHAIN_ID } from '../../core/payment-terms.ts'
import { startHardhatNode, type HardhatNode } from '../hardhat/node.ts'

/**
 * The local payments chain, for development (`svc start` runs it unless a facilitator URL or a
 * payments RPC URL is configured) and for the x402 tests: a Hardhat node reporting chain id
 * 8453 (so the network is eip155:8453 as in production), our EIP-3009 test USDC (`USDC.sol`,
 * compiled with the `solc` package) deployed by the node's first account, and a
 * `tryAggregate` contract at Multicall3's standard address so the facilitator can name the
 * reason a payment would fail. Nothing persists: each start is a fresh chain (the USDC address
 * is the same every time, since the deployer and its nonce are).
 */

export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** Hardhat's public test mnemonic: its accounts are well known and must never hold real funds. */
const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

export interface Compiled {
  abi: Abi
  bytecode: Hex
  deployedBytecode: Hex
}

type Contracts = Record<'TestUSDC' | 'TryAggregate', Compiled>

const require = createRequire(import.meta.url)
const sourcePath = fileURLToPath(new URL('./USDC.sol', import.meta.url))
let compiled: Contracts | undefined

type Solc = { compile(input: string): string; version(): string }

/**
 * USDC.sol compiled: once per process, and cached on disk by source and compiler version,
 * since solc-js takes seconds and `svc start` would pay them on every start.
 */
export function compilePaymentsContracts(): Contracts {
  if (compiled) return compiled
  const source = readFileSync(sourcePath, 'utf8')
  const solc = require('solc') as Solc
  const digest = createHash('sha256').update(solc.version()).update('\0').update(source).digest('hex').slice(0, 16)
  const cacheDir = join(tmpdir(), 'svc-payments-chain')
  const cacheFile = join(cacheDir, `${digest}.json`)
  try {
    compiled = JSON.parse(readFileSync(cacheFile, 'utf8')) as Contracts
    return compiled
  } catch {
    // not cached yet (or unreadable): compile
  }
  compiled = compile(solc, source)
  // Written whole then renamed, so a concurrent reader never sees half a file.
  mkdirSync(cacheDir, { recursive: true })
  const partial = `${cacheFile}.${process.pid}.tmp`
  writeFileSync(partial, JSON.stringify(compiled))
  renameSync(partial, cacheFile)
  return compiled
}

function compile(solc: Solc, source: string): Contracts {
  const input = {
    language: 'Solidity',
    sources: { 'USDC.sol': { content: source } },
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
  return Object.fromEntries(
    Object.entries(output.contracts['USDC.sol']!).map(([name, c]) => [
      name,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex, deployedBytecode: `0x${c.evm.deployedBytecode.object}` as Hex },
    ]),
  ) as Contracts
}

export interface PaymentsChain {
  node: HardhatNode
  /** The deployed test USDC. */
  usdc: Address
  usdcAbi: Abi
  /** Mnemonic accounts as local signers (they sign EIP-712 themselves), index = mnemonic index. */
  signer(index: number): HDAccount
  balanceOf(who: Address): Promise<bigint>
  /** Mint test USDC (6-decimal base units) to `to`; answers the transaction and the new balance. */
  mint(to: Address, atomic: bigint): Promise<{ transaction: Hex; balance: bigint }>
  stop(): Promise<void>
}

export interface StartPaymentsChainOptions {
  /** Mnemonic indexes minted `mintAtomic` each (default 1..9; `svc start` funds none). */
  fund?: number[]
  /** USDC base units per funded account (default 1,000 USDC). */
  mintAtomic?: bigint
  /** TCP port of the node (default: any free port). */
  port?: number
}

/** The chain id the local payments chain reports: Base's, so requirements name eip155:8453. */
export const PAYMENTS_CHAIN_ID = PAYMENT_CHAIN_ID

export async function startPaymentsChain(options: StartPaymentsChainOptions = {}): Promise<PaymentsChain> {
  const contracts = compilePaymentsContracts()
  // Block times follow the wall clock, also through a burst of settlements (a block each):
  // authorizations carry real validity windows, and the chain checks them against its own clock.
  // With a second per block, 300 paid calls in ten seconds put that clock five minutes ahead and
  // every authorization signed after them (valid five minutes) failed as expired.
  const node = await startHardhatNode({ chainId: PAYMENTS_CHAIN_ID, accounts: 10, port: options.port, initialDate: new Date().toISOString(), wallClock: true })
  try {
    const { client } = node
    const deployer = node.accounts[0]!
    await client.request({ method: 'hardhat_setCode', params: [MULTICALL3_ADDRESS, contracts.TryAggregate.deployedBytecode] } as never)
    const hash = await client.deployContract({ abi: contracts.TestUSDC.abi, bytecode: contracts.TestUSDC.bytecode, account: deployer, chain: node.chain })
    const receipt = await client.waitForTransactionReceipt({ hash })
    const usdc = receipt.contractAddress!
    const mintAtomic = options.mintAtomic ?? 1_000_000_000n
    const signer = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })
    const balanceOf = async (who: Address) =>
      (await client.readContract({ address: usdc, abi: contracts.TestUSDC.abi, functionName: 'balanceOf', args: [who] })) as bigint
    const mint = async (to: Address, atomic: bigint) => {
      const transaction = await client.writeContract({ address: usdc, abi: contracts.TestUSDC.abi, functionName: 'mint', args: [to, atomic], account: deployer, chain: node.chain })
      const receipt = await client.waitForTransactionReceipt({ hash: transaction })
      if (receipt.status !== 'success') throw new Error(`minting test USDC reverted (${transaction})`)
      return { transaction, balance: await balanceOf(to) }
    }
    for (const i of options.fund ?? [1, 2, 3, 4, 5, 6, 7, 8, 9]) await mint(signer(i).address, mintAtomic)
    return { node, usdc, usdcAbi: contracts.TestUSDC.abi, signer, balanceOf, mint, stop: () => node.stop() }
  } catch (error) {
    await node.stop()
    throw error
  }
}
