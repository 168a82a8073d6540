import { getContractAddress, type Hex } from 'viem'
import { type SimContracts, ZERO_ADDRESS } from './contracts.ts'
import type { LogSpec } from './encode.ts'
import { createVenues, type SimPool, type Venue } from './pools.ts'
import type { Rng } from './prng.ts'

/**
 * The state of the simulated chain and the rules that move it one block. It decides what
 * happens (launches, insiders, liquidity, trades, transfers, pulls and rugs) and returns
 * transactions as `LogSpec`s; it never encodes, so replaying to a later block skips the ABI
 * work. How each venue (Uniswap v2, v3, v4) books an operation lives in pools.ts.
 *
 * Every random draw comes from the one seeded `Rng`, in a fixed order, so a seed fixes the
 * whole history. (The float math here, Math.exp/log, is V8's software fdlibm port, so it
 * does not vary by CPU either.) Every log the world emits is one the production decoders read.
 */

/** Knobs of the world; the defaults give about 20 logs per block at steady state. */
export interface WorldParams {
  /** Mean token launches per block. */
  launchesPerBlock: number
  /** Mean plain wallet-to-wallet transfers per block. */
  transfersPerBlock: number
  /** Mean new trader wallets appearing per block. */
  newTradersPerBlock: number
  /** Share of launches by a wallet that has launched before. */
  repeatLauncherShare: number
  /** Share of swaps that route token A -> WETH -> token B in one transaction (v2 pairs only). */
  routedSwapShare: number
  /** Share of launches that list on Uniswap v3, and on v4; the rest list on v2. */
  v3LaunchShare: number
  v4LaunchShare: number
  /** Deployers present from the start who keep launching, all along the history. */
  serialDeployers: number
}

export const DEFAULT_WORLD_PARAMS: Readonly<WorldParams> = Object.freeze({
  launchesPerBlock: 0.05,
  transfersPerBlock: 1.2,
  newTradersPerBlock: 0.3,
  repeatLauncherShare: 0.5,
  routedSwapShare: 0.04,
  v3LaunchShare: 0.2,
  v4LaunchShare: 0.15,
  serialDeployers: 6,
})

export interface SimTx {
  from: string
  /** Address of a contract this transaction created (deployer = `from`). */
  creation?: string
  logs: LogSpec[]
  /** Ground truth of the simulation (never on the bus): the WETH the sender paid and got per token swap. */
  trades?: SimTrade[]
}

/** One swap leg of a simulated transaction's sender, valued in WETH (wei). */
export interface SimTrade {
  trader: string
  token: string
  wethSpent: bigint
  wethReceived: bigint
}

/**
 * dud: never gets a pool. fade: interest dies out (some deployers pull part of the liquidity
 * first). rug: the deployer removes all of its liquidity. popular: trades for long, becomes real.
 */
export type Fate = 'dud' | 'fade' | 'rug' | 'popular'

interface Deployer {
  address: string
  nonce: number
  /** 0..1: how likely their launches are to be popular rather than rugged. */
  quality: number
  /** Weight among repeat launchers. */
  propensity: number
}

interface Token {
  address: string
  deployer: Deployer
  supply: bigint
  fate: Fate
  venue: Venue
  /** Expected swaps per block at the peak of interest. */
  peak: number
  /** Blocks for interest to rise (popular tokens build up) and to decay. */
  rampBlocks: number
  decayBlocks: number
  liquidityBlock: number
  /** When the deployer removes `pullFraction` of its liquidity (0: never). */
  pullBlock: number
  pullFraction: number
  pool: SimPool | null
  alive: boolean
  balances: Map<string, bigint>
  /** Wallets that may hold a balance (zero balances are dropped lazily). */
  holders: string[]
}

const WEI = 10n ** 18n
const GWEI = 10n ** 9n

/** `eth` (a float) as wei, rounded to the gwei. */
function ethToWei(eth: number): bigint {
  return BigInt(Math.round(eth * 1e9)) * GWEI
}

/** `amount * fraction` for a float fraction in [0, 1], exact enough for simulated sizes. */
function scale(amount: bigint, fraction: number): bigint {
  return (amount * BigInt(Math.round(fraction * 1_000_000))) / 1_000_000n
}

export interface World {
  /** Advance the world by one block and return its transactions in order. */
  step(blockNumber: number): SimTx[]
  /** The tokens the last `step` launched, in launch order, with the fate decided at launch. */
  launched(): ReadonlyArray<{ address: string; fate: Fate }>
}

type Action =
  | { kind: 'launch' }
  | { kind: 'insider'; token: Token; wallet: string; amount: bigint }
  | { kind: 'addLiquidity'; token: Token }
  | { kind: 'swap' }
  | { kind: 'buy'; token: Token; trader: string }
  | { kind: 'insiderSell'; token: Token; wallet: string }
  | { kind: 'moreLiquidity'; token: Token }
  | { kind: 'pull'; token: Token }
  | { kind: 'transfer' }

/** A fresh world driven by `rng`. */
export function createWorld(rng: Rng, contracts: SimContracts, params: WorldParams): World {
  const weth = contracts.weth
  const venues = createVenues(contracts)

  const traders: string[] = []
  const serial: Deployer[] = []
  const repeaters: Deployer[] = []
  const pending: Token[] = [] // launched, liquidity not yet added
  let active: Token[] = [] // tradable
  /** Actions due in a later block (insider sells), by block number. */
  const scheduled = new Map<number, Action[]>()
  const launchedNow: Array<{ address: string; fate: Fate }> = []

  const freshAddress = () => '0x' + rng.hex(40)
  for (let i = 0; i < 200; i++) traders.push(freshAddress())
  // Serial deployers: long histories, many launches, a few of them good at it.
  for (let i = 0; i < params.serialDeployers; i++) {
    serial.push({ address: freshAddress(), nonce: rng.int(400), quality: i % 2 === 0 ? rng.range(0.7, 1) : rng.range(0, 0.5), propensity: rng.range(8, 16) })
  }

  function schedule(block: number, action: Action): void {
    const due = scheduled.get(block)
    if (due === undefined) scheduled.set(block, [action])
    else due.push(action)
  }

  // A fifth of buys come from the first 40 wallets: bots and whales that trade everything.
  function pickTrader(): string {
    if (rng.chance(0.08)) {
      const t = freshAddress()
      traders.push(t)
      return t
    }
    if (rng.chance(0.2)) return traders[rng.int(Math.min(40, traders.length))]
    return rng.pick(traders)
  }

  function pickDeployer(): Deployer {
    if (serial.length + repeaters.length > 0 && rng.chance(params.repeatLauncherShare)) {
      let total = 0
      for (const d of serial) total += d.propensity
      for (const d of repeaters) total += d.propensity
      let x = rng.float() * total
      for (const d of serial) {
        x -= d.propensity
        if (x < 0) return d
      }
      for (const d of repeaters) {
        x -= d.propensity
        if (x < 0) return d
      }
      return repeaters.length > 0 ? repeaters[repeaters.length - 1] : serial[serial.length - 1]
    }
    const good = rng.chance(0.15)
    const d: Deployer = {
      address: freshAddress(),
      nonce: rng.int(40),
      quality: good ? rng.range(0.6, 1) : rng.range(0, 0.4),
      propensity: rng.logRange(0.2, 5),
    }
    if (rng.chance(0.3)) {
      repeaters.push(d)
      if (repeaters.length > 150) repeaters.splice(rng.int(repeaters.length), 1)
    }
    return d
  }

  function credit(token: Token, wallet: string, amount: bigint): void {
    const prev = token.balances.get(wallet)
    if (prev === undefined || prev === 0n) token.holders.push(wallet)
    token.balances.set(wallet, (prev ?? 0n) + amount)
  }

  function debit(token: Token, wallet: string, amount: bigint): void {
    token.balances.set(wallet, (token.balances.get(wallet) ?? 0n) - amount)
  }

  /** A random wallet holding `token`, or null. Drops zero-balance wallets it meets. */
  function pickHolder(token: Token): string | null {
    while (token.holders.length > 0) {
      const i = rng.int(token.holders.length)
      const w = token.holders[i]
      if ((token.balances.get(w) ?? 0n) > 0n) return w
      token.holders[i] = token.holders[token.holders.length - 1]
      token.holders.pop()
    }
    return null
  }

  function interest(token: Token, block: number): number {
    const age = block - token.liquidityBlock
    const ramp = 1 - Math.exp(-(age + 1) / token.rampBlocks)
    return token.peak * ramp * Math.exp(-age / token.decayBlocks)
  }

  function launch(block: number, queue: Action[], at: number): SimTx {
    const deployer = pickDeployer()
    const address = getContractAddress({ from: deployer.address as Hex, nonce: BigInt(deployer.nonce) }).toLowerCase()
    deployer.nonce++
    const supply = rng.pick([21_000_000n, 1_000_000_000n, 1_000_000_000_000n, 420_690_000_000_000n]) * WEI
    const q = deployer.quality
    const u = rng.float()
    const fate: Fate =
      u < 0.08 ? 'dud' : u < 0.08 + 0.02 + 0.12 * q ? 'popular' : u < 0.1 + 0.12 * q + 0.45 * (1 - q) ? 'rug' : 'fade'
    const popular = fate === 'popular'
    const v = rng.float()
    const token: Token = {
      address,
      deployer,
      supply,
      fate,
      venue: v < params.v3LaunchShare ? 'v3' : v < params.v3LaunchShare + params.v4LaunchShare ? 'v4' : 'v2',
      peak: popular ? rng.range(0.5, 2) : rng.logRange(0.05, 0.8),
      rampBlocks: popular ? rng.range(30, 300) : 2,
      decayBlocks: popular ? rng.range(400, 2500) : rng.range(8, 80),
      liquidityBlock: block + (rng.chance(0.4) ? 0 : 1 + rng.int(20)),
      pullBlock: 0,
      pullFraction: 0,
      pool: null,
      alive: true,
      balances: new Map(),
      holders: [],
    }
    if (fate === 'rug') {
      token.pullBlock = token.liquidityBlock + 5 + rng.int(250)
      token.pullFraction = 1
    } else if (fate === 'fade' && rng.chance(0.2)) {
      // A partial pull: the token lives on, below the 90% that would make it dead.
      token.pullBlock = token.liquidityBlock + 5 + rng.int(100)
      token.pullFraction = rng.range(0.2, 0.6)
    }
    credit(token, deployer.address, supply)
    launchedNow.push({ address, fate })
    if (fate !== 'dud') {
      if (token.liquidityBlock === block) queue.splice(at + 1 + rng.int(queue.length - at), 0, { kind: 'addLiquidity', token })
      else pending.push(token)
      // Insiders: before the pool opens the deployer hands off-market supply to fresh wallets,
      // which sell into the pool later (before the rug, for a rug). Spliced in right after this
      // launch, so ahead of the pool's opening even when it opens in this block.
      const insiders = fate === 'rug' ? 2 + rng.int(4) : rng.chance(0.3) ? 1 + rng.int(3) : 0
      for (let i = 0; i < insiders; i++) {
        const wallet = freshAddress()
        queue.splice(at + 1, 0, { kind: 'insider', token, wallet, amount: scale(supply, rng.range(0.005, 0.04)) })
        const window = fate === 'rug' ? Math.max(1, token.pullBlock - token.liquidityBlock - 1) : 400
        schedule(token.liquidityBlock + 1 + rng.int(window), { kind: 'insiderSell', token, wallet })
      }
    }
    return {
      from: deployer.address,
      creation: address,
      logs: [{ type: 'erc20_transfer', address, from: ZERO_ADDRESS, to: deployer.address, value: supply }],
    }
  }

  function insider(token: Token, wallet: string, amount: bigint): SimTx {
    const from = token.deployer.address
    token.deployer.nonce++
    debit(token, from, amount)
    credit(token, wallet, amount)
    return { from, logs: [{ type: 'erc20_transfer', address: token.address, from, to: wallet, value: amount }] }
  }

  function addInitialLiquidity(token: Token, queue: Action[], at: number): SimTx {
    const deployer = token.deployer
    deployer.nonce++
    const amountToken = scale(token.balances.get(deployer.address)!, rng.range(0.6, 1))
    const amountWeth = ethToWei(rng.logRange(0.3, token.fate === 'popular' ? 20 : 6))
    const fee = token.venue === 'v2' ? 3000 : rng.chance(0.7) ? 3000 : 10000
    const { pool, logs } = venues.open(token.venue, token.address, deployer.address, amountToken, amountWeth, fee)
    token.pool = pool
    debit(token, deployer.address, amountToken)
    active.push(token)
    // Snipers: fresh wallets that buy in the same block, right after the pool opens.
    const snipers = token.fate === 'rug' ? rng.int(4) : rng.int(2)
    for (let i = 0; i < snipers; i++) queue.splice(at + 1, 0, { kind: 'buy', token, trader: freshAddress() })
    return { from: deployer.address, logs }
  }

  function buy(token: Token, trader: string): SimTx | null {
    const pool = token.pool!
    const cap = Number(pool.reserveWeth / GWEI) / 1e9
    const wethIn = ethToWei(Math.min(rng.logRange(0.002, token.fate === 'popular' ? 3 : 0.8), cap * 0.3))
    if (wethIn === 0n) return null
    const tokenOut = venues.quote(pool, wethIn, true)
    if (tokenOut === 0n) return null
    credit(token, trader, tokenOut)
    return { from: trader, logs: venues.swap(pool, { wethIn: true, amountIn: wethIn, payer: null, recipient: trader }, tokenOut), trades: [{ trader, token: token.address, wethSpent: wethIn, wethReceived: 0n }] }
  }

  function sellAmount(token: Token, seller: string): bigint {
    const balance = token.balances.get(seller) ?? 0n
    return rng.chance(0.35) ? balance : scale(balance, rng.range(0.1, 0.9))
  }

  /** `seller` sells `amount`; most sells unwrap to ETH through the router, some take WETH. */
  function sellTx(token: Token, seller: string, amount: bigint): SimTx | null {
    const pool = token.pool!
    if (amount === 0n) return null
    const wethOut = venues.quote(pool, amount, false)
    if (wethOut === 0n) return null
    const recipient = rng.chance(0.8) ? null : seller
    debit(token, seller, amount)
    return { from: seller, logs: venues.swap(pool, { wethIn: false, amountIn: amount, payer: seller, recipient }, wethOut), trades: [{ trader: seller, token: token.address, wethSpent: 0n, wethReceived: wethOut }] }
  }

  function sell(token: Token): SimTx | null {
    const seller = pickHolder(token)
    if (seller === null) return null
    return sellTx(token, seller, sellAmount(token, seller))
  }

  function insiderSell(token: Token, wallet: string): SimTx | null {
    const balance = token.balances.get(wallet) ?? 0n
    return sellTx(token, wallet, rng.chance(0.6) ? balance : scale(balance, rng.range(0.4, 0.9)))
  }

  /** Sell `from` and buy `into` in one transaction on two v2 pairs: the WETH goes pair to pair. */
  function routed(from: Token, into: Token): SimTx | null {
    const seller = pickHolder(from)
    if (seller === null) return null
    const amount = sellAmount(from, seller)
    const fromPool = from.pool!
    const intoPool = into.pool!
    if (amount === 0n) return null
    const wethMid = venues.quote(fromPool, amount, false)
    if (wethMid === 0n) return null
    const tokenOut = venues.quote(intoPool, wethMid, true)
    if (tokenOut === 0n) return null
    debit(from, seller, amount)
    credit(into, seller, tokenOut)
    const logs = venues.swap(fromPool, { wethIn: false, amountIn: amount, payer: seller, recipient: intoPool.address }, wethMid)
    // The second hop's WETH is already in its pair: its transfer is the first hop's.
    logs.push(...venues.swap(intoPool, { wethIn: true, amountIn: wethMid, payer: fromPool.address, recipient: seller, inputPaid: true }, tokenOut))
    return {
      from: seller,
      logs,
      trades: [{ trader: seller, token: from.address, wethSpent: 0n, wethReceived: wethMid }, { trader: seller, token: into.address, wethSpent: wethMid, wethReceived: 0n }],
    }
  }

  function addLiquidity(token: Token): SimTx | null {
    const provider = pickHolder(token)
    if (provider === null) return null
    const amountToken = scale(token.balances.get(provider)!, rng.range(0.2, 1))
    const added = venues.add(token.pool!, provider, amountToken)
    if (added === null) return null
    debit(token, provider, amountToken)
    return { from: provider, logs: added.logs }
  }

  /** The deployer removes `pullFraction` of its liquidity; all of it is a rug, and the token is dead. */
  function pull(token: Token): SimTx | null {
    const owner = token.deployer.address
    if (token.pullFraction >= 1) token.alive = false
    const removed = venues.remove(token.pool!, owner, token.pullFraction)
    if (removed === null) return null
    token.deployer.nonce++
    credit(token, owner, removed.outToken)
    return { from: owner, logs: removed.logs }
  }

  function transfer(token: Token | undefined): SimTx | null {
    if (token === undefined || rng.chance(0.3)) {
      const from = rng.pick(traders)
      return { from, logs: [{ type: 'erc20_transfer', address: weth, from, to: rng.pick(traders), value: ethToWei(rng.logRange(0.01, 5)) }] }
    }
    const from = pickHolder(token)
    if (from === null) return null
    const value = scale(token.balances.get(from)!, rng.range(0.05, 1))
    if (value === 0n) return null
    const to = rng.chance(0.3) ? freshAddress() : rng.pick(traders)
    debit(token, from, value)
    credit(token, to, value)
    return { from, logs: [{ type: 'erc20_transfer', address: token.address, from, to, value }] }
  }

  function step(block: number): SimTx[] {
    launchedNow.length = 0
    for (let n = rng.poisson(params.newTradersPerBlock); n > 0; n--) traders.push(freshAddress())

    // Interest per tradable token, fixed for the block; tokens nobody trades any more leave.
    const weights: number[] = []
    let total = 0
    const stillActive: Token[] = []
    for (const t of active) {
      const w = t.alive ? interest(t, block) : 0
      if (w < 0.002 && block - t.liquidityBlock > t.rampBlocks) {
        t.alive = false
        t.balances.clear()
        t.holders.length = 0
        continue
      }
      stillActive.push(t)
      weights.push(w)
      total += w
    }
    active = stillActive

    const queue: Action[] = []
    for (let n = rng.poisson(params.launchesPerBlock); n > 0; n--) queue.push({ kind: 'launch' })
    for (let i = pending.length - 1; i >= 0; i--) {
      if (pending[i].liquidityBlock <= block) {
        queue.push({ kind: 'addLiquidity', token: pending[i] })
        pending.splice(i, 1)
      }
    }
    for (const t of active) {
      if (t.pullBlock === block) queue.push({ kind: 'pull', token: t })
      else if (t.fate === 'popular' && rng.chance(0.01)) queue.push({ kind: 'moreLiquidity', token: t })
    }
    const due = scheduled.get(block)
    if (due !== undefined) {
      scheduled.delete(block)
      queue.push(...due)
    }
    for (let n = rng.poisson(total); n > 0; n--) queue.push({ kind: 'swap' })
    for (let n = rng.poisson(params.transfersPerBlock); n > 0; n--) queue.push({ kind: 'transfer' })
    for (let i = queue.length - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      ;[queue[i], queue[j]] = [queue[j], queue[i]]
    }

    // Tokens whose pool opens during this block trade only through their snipers until the next.
    const tradable = active.slice()
    const pickActive = (): Token | undefined => {
      let x = rng.float() * total
      for (let i = 0; i < tradable.length; i++) {
        x -= weights[i]
        if (x < 0) return tradable[i]
      }
      return tradable[tradable.length - 1]
    }

    const txs: SimTx[] = []
    for (let at = 0; at < queue.length; at++) {
      const action = queue[at]
      let tx: SimTx | null = null
      switch (action.kind) {
        case 'launch':
          tx = launch(block, queue, at)
          break
        case 'insider':
          tx = insider(action.token, action.wallet, action.amount)
          break
        case 'addLiquidity':
          tx = addInitialLiquidity(action.token, queue, at)
          break
        case 'buy':
          if (action.token.alive) tx = buy(action.token, action.trader)
          break
        case 'insiderSell':
          if (action.token.alive && action.token.pool !== null) tx = insiderSell(action.token, action.wallet)
          break
        case 'moreLiquidity':
          if (action.token.alive) tx = addLiquidity(action.token)
          break
        case 'pull':
          if (action.token.alive) tx = pull(action.token)
          break
        case 'transfer': {
          const t = active.length > 0 ? active[rng.int(active.length)] : undefined
          tx = transfer(t?.alive ? t : undefined)
          break
        }
        case 'swap': {
          const t = pickActive()
          if (t === undefined || !t.alive) break
          const age = block - t.liquidityBlock
          // Early on buyers dominate; later it is closer to even.
          const buyShare = age < t.rampBlocks + 20 ? 0.7 : 0.5
          if (rng.chance(buyShare)) tx = buy(t, pickTrader())
          else if (tradable.length > 1 && t.venue === 'v2' && rng.chance(params.routedSwapShare)) {
            const into = pickActive()
            if (into !== undefined && into !== t && into.alive && into.venue === 'v2') tx = routed(t, into)
          } else tx = sell(t)
          break
        }
      }
      if (tx !== null) txs.push(tx)
    }
    return txs
  }

  return { step, launched: () => launchedNow }
}
