import { expect } from 'vitest'
import { parseAbiItem, type Address, type Client } from 'viem'
import { getBlock, getLogs, readContract } from 'viem/actions'
import { artifacts } from './hardhat/artifacts.ts'
import type { ScenarioToken } from './chain-scenario.ts'

/**
 * The holder structure of a token as the node says it, sharing no code with the service: the
 * token's Transfer logs replayed, every balance checked against `balanceOf` at the block, the
 * baseline found by walking block timestamps back from the window end, and the insiders from
 * the transfers before the pair's first Swap (DESIGN §7). Compared with /structure/{token}.
 */
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const SWAP = parseAbiItem('event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)')
const ZERO = '0x0000000000000000000000000000000000000000'
const DAY = 86_400n

interface Moved {
  block: bigint
  logIndex: number
  from: string
  to: string
  value: bigint
}

function replay(transfers: Moved[], at: bigint): Map<string, bigint> {
  const b = new Map<string, bigint>()
  for (const t of transfers) {
    if (t.block > at) continue
    if (t.from !== ZERO) b.set(t.from, (b.get(t.from) ?? 0n) - t.value)
    if (t.to !== ZERO) b.set(t.to, (b.get(t.to) ?? 0n) + t.value)
  }
  return b
}

export interface ChainStructure {
  insiders: string[]
  window: { from: bigint; to: bigint; full: boolean }
  classes: { frozen: number; added: number; trimmed: number; exited: number }
  newHolders: number
  /** Label kinds per listed wallet, from the answer. */
  labels: Map<string, string[]>
}

export async function expectStructureMatchesChain(
  client: Client,
  token: ScenarioToken,
  toBlock: bigint,
  get: (url: string) => Promise<{ signal: string; data: any }>,
): Promise<ChainStructure> {
  const addr = token.address.toLowerCase()
  const pair = token.pair.toLowerCase()
  const deployer = token.deployer.toLowerCase()
  const end = await getBlock(client, { blockNumber: toBlock })
  let baseline: bigint | null = null
  for (let n = toBlock; n >= 0n; n--) {
    const b = await getBlock(client, { blockNumber: n })
    if (b.timestamp <= end.timestamp - DAY) {
      baseline = n
      break
    }
  }
  const logs = await getLogs(client, { address: token.address, event: TRANSFER, fromBlock: 0n, toBlock })
  const transfers: Moved[] = logs.map((l) => ({ block: l.blockNumber!, logIndex: l.logIndex!, from: l.args.from!.toLowerCase(), to: l.args.to!.toLowerCase(), value: l.args.value! }))
  transfers.sort((a, b) => (a.block !== b.block ? (a.block < b.block ? -1 : 1) : a.logIndex - b.logIndex))

  const { data, signal } = await get(`/structure/${addr}?as_of_block=${toBlock}`)
  const from = baseline ?? BigInt(data.window.from_block)
  expect(data.window.to_block).toBe(Number(toBlock))
  expect(data.window.from_block, `baseline of ${addr}`).toBe(Number(from))
  if (baseline === null) expect(signal).toBe('insufficient_data')

  const then = replay(transfers, from)
  const now = replay(transfers, toBlock)
  // The replay is what the token contract says at both blocks.
  for (const [at, balances] of [[from, then], [toBlock, now]] as const) {
    for (const w of new Set([...then.keys(), ...now.keys()])) {
      const onChain = (await readContract(client, { address: token.address, abi: artifacts.token.abi, functionName: 'balanceOf', args: [w as Address], blockNumber: at })) as bigint
      expect(balances.get(w) ?? 0n, `balanceOf(${w}) at ${at}`).toBe(onChain)
    }
  }

  expect(data.pools).toEqual([{ address: pair, balance_wei: (now.get(pair) ?? 0n).toString() }])
  const holders = [...now].filter(([w, b]) => w !== pair && b > 0n)
  expect(data.holders.count).toBe(holders.length)
  expect(holders.length).toBeLessThanOrEqual(50)
  expect(new Map(data.holders.top.map((h: { address: string; balance_wei: string }) => [h.address, h.balance_wei]))).toEqual(new Map(holders.map(([w, b]) => [w, b.toString()])))

  const classes = { frozen: 0, added: 0, trimmed: 0, exited: 0 }
  const expected = new Map<string, unknown>()
  let newHolders = 0
  for (const w of new Set([...then.keys(), ...now.keys()])) {
    const t = then.get(w) ?? 0n
    const n = now.get(w) ?? 0n
    if (w === pair || (t === 0n && n === 0n)) continue
    const cls = n === t ? 'frozen' : n > t ? 'added' : n > 0n ? 'trimmed' : 'exited'
    classes[cls]++
    if (t === 0n && n > 0n) newHolders++
    expected.set(w, { class: cls, balance_then_wei: t.toString(), balance_now_wei: n.toString(), delta_wei: (n - t).toString(), new_holder: t === 0n && n > 0n })
  }
  expect(data.diff.summary).toEqual(classes)
  expect(data.diff.total).toBe(expected.size)
  expect(data.diff.truncated).toBe(false)
  const answered = new Map(
    data.diff.wallets.map((x: any) => [x.address, { class: x.class, balance_then_wei: x.balance_then_wei, balance_now_wei: x.balance_now_wei, delta_wei: x.delta_wei, new_holder: x.new_holder }]),
  )
  expect(answered).toEqual(expected)
  const abs = data.diff.wallets.map((x: any) => (BigInt(x.delta_wei) < 0n ? -BigInt(x.delta_wei) : BigInt(x.delta_wei)))
  for (let i = 1; i < abs.length; i++) expect(abs[i - 1] >= abs[i]).toBe(true)

  // Insiders: received off-market (not from the pair) from the deployer, a mint, or a wallet so
  // funded, before the pair's first Swap.
  const swaps = await getLogs(client, { address: token.pair, event: SWAP, fromBlock: 0n, toBlock })
  const firstSwap = swaps.length ? swaps.map((s) => s.blockNumber!).reduce((a, b) => (a < b ? a : b)) : toBlock + 1n
  const funded = new Set([deployer, ZERO])
  const insiders = new Set<string>()
  for (const t of transfers) {
    if (t.block >= firstSwap) break
    if (funded.has(t.from) && t.to !== pair && t.to !== ZERO && t.to !== deployer) {
      funded.add(t.to)
      insiders.add(t.to)
    }
  }
  const labels = new Map<string, string[]>()
  for (const x of [...data.holders.top, ...data.diff.wallets]) labels.set(x.address, x.labels.map((l: { kind: string }) => l.kind))
  for (const [w, kinds] of labels) {
    expect(kinds.includes('insider'), `insider label of ${w}`).toBe(insiders.has(w))
    expect(kinds.includes('deployer'), `deployer label of ${w}`).toBe(w === deployer)
  }
  return { insiders: [...insiders], window: { from, to: toBlock, full: baseline !== null }, classes, newHolders, labels }
}
