import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import {
  createTestClient,
  defineChain,
  http,
  publicActions,
  walletActions,
  type Address,
  type Chain,
  type Hex,
} from 'viem'

/**
 * A real EVM node for end-to-end tests and the local payments chain of `svc start`: Hardhat 2's
 * JSON-RPC node (`hardhat node`) as a
 * child process on 127.0.0.1, chain id 4663 unless told otherwise, automining (every
 * transaction is mined into its own block when it arrives, unless automine is switched off
 * with `evm_setAutomine`), 30 funded accounts from the public test mnemonic which the node
 * signs for (send with `eth_sendTransaction` / a wallet client using an address account).
 *
 * The service reads it over JSON-RPC (`CHAIN_4663_RPC_URL=node.rpcUrl` in the chain tests,
 * `X402_NETWORK_RPC_URL` for payments).
 */

export interface StartHardhatOptions {
  /** Chain id the node reports (default 4663). */
  chainId?: number
  /** TCP port; when omitted the OS picks a free one (the node listens on port 0). */
  port?: number
  /** Funded accounts (default 30). */
  accounts?: number
  /** Print every JSON-RPC call on the node's stdout (default false). */
  logging?: boolean
  /** The first block's date, ISO (default 2025-01-01, so block times are reproducible). */
  initialDate?: string
  /**
   * Blocks mined within one second share its timestamp, so the chain's clock stays the wall
   * clock however many transactions arrive (default false: hardhat then gives each automined
   * block a second of its own, and a burst of transactions moves the chain's clock ahead).
   */
  wallClock?: boolean
  /** How long to wait for `eth_chainId` to answer (default 60 s). */
  startTimeoutMs?: number
}

export type HardhatClient = ReturnType<typeof makeClient>

export interface HardhatNode {
  /** `http://127.0.0.1:<port>` */
  readonly rpcUrl: string
  readonly chainId: number
  readonly chain: Chain
  /** viem test client extended with public and wallet actions, talking to this node. */
  readonly client: HardhatClient
  /** The node's funded accounts (unlocked: the node signs for them), in mnemonic order. */
  readonly accounts: readonly Address[]
  /** The node's process id. */
  readonly pid: number
  /** `evm_snapshot`: the id to hand to `revert`. */
  snapshot(): Promise<Hex>
  /** `evm_revert`: back to the snapshot (blocks after it are gone); a snapshot id is used up by a revert. */
  revert(id: Hex): Promise<void>
  /** `hardhat_mine`: n empty blocks (default 1). */
  mine(n?: number): Promise<void>
  /** Last lines the node printed (for diagnostics). */
  output(): string
  /** Kills the node and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>
}

const require = createRequire(import.meta.url)
const configPath = fileURLToPath(new URL('./hardhat.config.cjs', import.meta.url))

function hardhatCli(): string {
  // `npx hardhat` resolves to this file; running it directly leaves no npx process between
  // us and the node, so stop() signals the node itself.
  return require.resolve('hardhat/internal/cli/bootstrap.js')
}

function makeClient(chain: Chain, rpcUrl: string) {
  return createTestClient({
    chain,
    mode: 'hardhat',
    transport: http(rpcUrl, { batch: { batchSize: 200, wait: 0 }, retryCount: 0, timeout: 30_000 }),
    pollingInterval: 50,
    cacheTime: 0,
  })
    .extend(publicActions)
    .extend(walletActions)
}

const READY = /Started HTTP and WebSocket JSON-RPC server at (http:\/\/[^\s/]+:\d+)\//

export async function startHardhatNode(options: StartHardhatOptions = {}): Promise<HardhatNode> {
  const chainId = options.chainId ?? 4663
  const timeoutMs = options.startTimeoutMs ?? 60_000
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HARDHAT_CHAIN_ID: String(chainId),
    HARDHAT_ACCOUNTS: String(options.accounts ?? 30),
    HARDHAT_LOGGING: options.logging ? 'true' : 'false',
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
    ...(options.initialDate ? { HARDHAT_INITIAL_DATE: options.initialDate } : {}),
    HARDHAT_WALL_CLOCK: options.wallClock ? 'true' : 'false',
  }
  // A network chosen by the environment (HARDHAT_NETWORK) would make `hardhat node` refuse.
  delete env.HARDHAT_NETWORK
  const child = spawn(
    process.execPath,
    [hardhatCli(), '--config', configPath, 'node', '--hostname', '127.0.0.1', '--port', String(options.port ?? 0)],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  )
  const tail = new OutputTail(200)
  // Both pipes are drained for the node's whole life: a full pipe would block the node.
  child.stdout!.setEncoding('utf8').on('data', (s: string) => tail.push(s))
  child.stderr!.setEncoding('utf8').on('data', (s: string) => tail.push(s))
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)

  let rpcUrl: string
  try {
    rpcUrl = await waitForListening(child, tail, timeoutMs)
    await waitForChainId(rpcUrl, chainId, child, tail, timeoutMs)
  } catch (error) {
    await kill(child)
    process.removeListener('exit', killOnExit)
    throw error
  }

  const chain = defineChain({
    id: chainId,
    name: `hardhat-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const client = makeClient(chain, rpcUrl)
  const accounts = await client.getAddresses()

  let stopped: Promise<void> | undefined
  return {
    rpcUrl,
    chainId,
    chain,
    client,
    accounts,
    pid: child.pid!,
    snapshot: () => client.snapshot(),
    async revert(id) {
      const ok: unknown = await client.request({ method: 'evm_revert', params: [id] } as never)
      if (ok !== true) throw new Error(`evm_revert ${id} was refused (unknown or already used snapshot)`)
    },
    async mine(n = 1) {
      await client.mine({ blocks: n })
    },
    output: () => tail.text(),
    stop() {
      stopped ??= kill(child).finally(() => process.removeListener('exit', killOnExit))
      return stopped
    },
  }
}

class OutputTail {
  private lines: string[] = []
  private partial = ''
  constructor(private readonly max: number) {}
  push(chunk: string): void {
    const parts = (this.partial + chunk).split('\n')
    this.partial = parts.pop() ?? ''
    this.lines.push(...parts)
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max)
  }
  text(): string {
    return [...this.lines, this.partial].join('\n')
  }
}

function waitForListening(child: ChildProcess, tail: OutputTail, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`hardhat node did not start in ${timeoutMs} ms:\n${tail.text()}`)), timeoutMs)
    const onData = () => {
      const m = READY.exec(tail.text())
      if (m) done(undefined, m[1])
    }
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`hardhat node exited (${code ?? signal}) before listening:\n${tail.text()}`))
    function done(error?: Error, url?: string) {
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve(url!)
    }
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
    child.once('error', (e) => done(e))
  })
}

async function waitForChainId(
  rpcUrl: string,
  chainId: number,
  child: ChildProcess,
  tail: OutputTail,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`hardhat node exited (${child.exitCode ?? child.signalCode}):\n${tail.text()}`)
    }
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      const body = (await res.json()) as { result?: string }
      if (body.result !== undefined) {
        if (Number(body.result) !== chainId) {
          throw new Error(`hardhat node at ${rpcUrl} reports chain id ${Number(body.result)}, expected ${chainId}`)
        }
        return
      }
      last = body
    } catch (error) {
      if (error instanceof Error && error.message.includes('reports chain id')) throw error
      last = error
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`hardhat node at ${rpcUrl} did not answer eth_chainId in ${timeoutMs} ms (${String(last)})`)
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
