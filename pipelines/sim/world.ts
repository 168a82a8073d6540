import { getContractAddress, type Hex, keccak256, concat } from 'viem'
import { getAmountOut, liquidityMinted, MINIMUM_LIQUIDITY } from './amm.ts'
import { type SimContracts, ZERO_ADDRESS } from './contracts.ts'
import type { LogSpec } from './encode.ts'
import type { Rng } from './prng.ts'

/**
 * The state of the simulated chain and the rules that move it one block. It decides what
 * happens (launches, liquidity, trades, transfers, rugs) and returns transactions as
 * `LogSpec`s; it never encodes, so replaying to a later block skips the ABI work.
 *
 * Every random draw comes from the one seeded `Rng`, in a fixed order, so a seed fixes the
 * whole history. (The float math here, Math.exp/log, is V8's software fdlibm port, so it
 * does not vary by CPU either.) WETH Deposit/Withdrawal events are not emitted: no decoder follows them,
 * and every log the world emits is one the production decoders read.
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
  /** Share of swaps that route token A -> WETH -> token B in one transaction. */
  routedSwapShare: number
}

export const DEFAULT_WORLD_PARAMS: Readonly<WorldParams> = Object.freeze({
  launchesPerBlock: 0.05,
  transfersPerBlock: 1.2,
  newTradersPerBlock: 0.3,
  repeatLauncherShare: 0.5,
  routedSwapShare: 0.04,
})

export interface SimTx {
  from: string
  /** Address of a contract this transaction created (deployer = `from`). */
  creation?: string
  logs: LogSpec[]
}

type Fate = 'dud' | 'fade' | 'rug' | 'popular'

interface Deployer {
  address: string
  nonce: number
  /** 0..1: how likely their launches are to be popular rather than rugged. */
  quality: number
  /** Weight among repeat launchers. */
  propensity: number
}

interface Pair {
  address: string
  tokenIs0: boolean
  reserveToken: bigint
  reserveWeth: bigint
  lpSupply: bigint
  lp: Map<string, bigint>
}

interface Token {
  address: string
  deployer: Deployer
  supply: bigint
  fate: Fate
  /** Expected swaps per block at the peak of interest. */
  peak: number
  /** Blocks for interest to rise (popular tokens build up) and to decay. */
  rampBlocks: number
  decayBlocks: number
  liquidityBlock: number
  rugBlock: number
  pair: Pair | null
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
}

/** A fresh world driven by `rng`. */
export function createWorld(rng: Rng, contracts: SimContracts, params: WorldParams): World {
  const weth = contracts.weth
  const factory = contracts.v2Factories[0]
  const router = contracts.v2Routers[0]
  let allPairsLength = 0n

  const traders: string[] = []
  const repeaters: Deployer[] = []
  const pending: Token[] = [] // launched, liquidity not yet added
  let active: Token[] = [] // tradable

  const freshAddress = () => '0x' + rng.hex(40)
  for (let i = 0; i < 200; i++) traders.push(freshAddress())

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
    if (repeaters.length > 0 && rng.chance(params.repeatLauncherShare)) {
      let total = 0
      for (const d of repeaters) total += d.propensity
      let x = rng.float() * total
      for (const d of repeaters) {
        x -= d.propensity
        if (x < 0) return d
      }
      return repeaters[repeaters.length - 1]
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

  function sync(pair: Pair): LogSpec {
    const [reserve0, reserve1] = pair.tokenIs0 ? [pair.reserveToken, pair.reserveWeth] : [pair.reserveWeth, pair.reserveToken]
    return { kind: 'sync', address: pair.address, reserve0, reserve1 }
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
    const token: Token = {
      address,
      deployer,
      supply,
      fate,
      peak: popular ? rng.range(0.5, 2) : rng.logRange(0.05, 0.8),
      rampBlocks: popular ? rng.range(30, 300) : 2,
      decayBlocks: popular ? rng.range(400, 2500) : rng.range(8, 80),
      liquidityBlock: block + (rng.chance(0.4) ? 0 : 1 + rng.int(20)),
      rugBlock: 0,
      pair: null,
      alive: true,
      balances: new Map(),
      holders: [],
    }
    token.rugBlock = token.liquidityBlock + 5 + rng.int(250)
    credit(token, deployer.address, supply)
    if (fate !== 'dud') {
      if (token.liquidityBlock === block) queue.splice(at + 1 + rng.int(queue.length - at), 0, { kind: 'addLiquidity', token })
      else pending.push(token)
    }
    return {
      from: deployer.address,
      creation: address,
      logs: [{ kind: 'transfer', address, from: ZERO_ADDRESS, to: deployer.address, value: supply }],
    }
  }

  function addInitialLiquidity(token: Token, queue: Action[], at: number): SimTx {
    const deployer = token.deployer
    deployer.nonce++
    const tokenIs0 = token.address < weth
    const [token0, token1] = tokenIs0 ? [token.address, weth] : [weth, token.address]
    const pairAddress = getContractAddress({
      opcode: 'CREATE2',
      from: factory as Hex,
      salt: keccak256(concat([token0 as Hex, token1 as Hex])),
      bytecodeHash: contracts.v2PairInitCodeHash as Hex,
    }).toLowerCase()
    allPairsLength++
    const amountToken = scale(token.supply, rng.range(0.6, 1))
    const amountWeth = ethToWei(rng.logRange(0.3, token.fate === 'popular' ? 20 : 6))
    const [amount0, amount1] = tokenIs0 ? [amountToken, amountWeth] : [amountWeth, amountToken]
    const liquidity = liquidityMinted(amount0, amount1, 0n, 0n, 0n)
    const pair: Pair = {
      address: pairAddress,
      tokenIs0,
      reserveToken: amountToken,
      reserveWeth: amountWeth,
      lpSupply: liquidity + MINIMUM_LIQUIDITY,
      lp: new Map([[deployer.address, liquidity]]),
    }
    token.pair = pair
    debit(token, deployer.address, amountToken)
    active.push(token)
    // Insiders: fresh wallets that buy in the same block, right after the pool opens.
    const snipers = token.fate === 'rug' ? rng.int(4) : rng.int(2)
    for (let i = 0; i < snipers; i++) queue.splice(at + 1, 0, { kind: 'buy', token, trader: freshAddress() })
    return {
      from: deployer.address,
      logs: [
        { kind: 'pairCreated', address: factory, token0, token1, pair: pairAddress, allPairsLength },
        { kind: 'transfer', address: token.address, from: deployer.address, to: pairAddress, value: amountToken },
        { kind: 'transfer', address: weth, from: router, to: pairAddress, value: amountWeth },
        { kind: 'transfer', address: pairAddress, from: ZERO_ADDRESS, to: ZERO_ADDRESS, value: MINIMUM_LIQUIDITY },
        { kind: 'transfer', address: pairAddress, from: ZERO_ADDRESS, to: deployer.address, value: liquidity },
        sync(pair),
        { kind: 'mint', address: pairAddress, sender: router, amount0, amount1 },
      ],
    }
  }

  function buy(token: Token, trader: string): SimTx | null {
    const pair = token.pair!
    const cap = Number(pair.reserveWeth / GWEI) / 1e9
    const wethIn = ethToWei(Math.min(rng.logRange(0.002, token.fate === 'popular' ? 3 : 0.8), cap * 0.3))
    const tokenOut = getAmountOut(wethIn, pair.reserveWeth, pair.reserveToken)
    if (wethIn === 0n || tokenOut === 0n) return null
    pair.reserveWeth += wethIn
    pair.reserveToken -= tokenOut
    credit(token, trader, tokenOut)
    return { from: trader, logs: buyLogs(token, wethIn, tokenOut, router, trader) }
  }

  /** Logs of a WETH -> token swap on `token`'s pair whose WETH was sent by `wethFrom`. */
  function buyLogs(token: Token, wethIn: bigint, tokenOut: bigint, wethFrom: string, to: string): LogSpec[] {
    const pair = token.pair!
    return [
      { kind: 'transfer', address: weth, from: wethFrom, to: pair.address, value: wethIn },
      { kind: 'transfer', address: token.address, from: pair.address, to, value: tokenOut },
      sync(pair),
      pair.tokenIs0
        ? { kind: 'swap', address: pair.address, sender: router, to, amount0In: 0n, amount1In: wethIn, amount0Out: tokenOut, amount1Out: 0n }
        : { kind: 'swap', address: pair.address, sender: router, to, amount0In: wethIn, amount1In: 0n, amount0Out: 0n, amount1Out: tokenOut },
    ]
  }

  /** Logs of a token -> WETH swap sending the WETH to `to`. Updates reserves and balances. */
  function sellLogs(token: Token, seller: string, amount: bigint, wethOut: bigint, to: string): LogSpec[] {
    const pair = token.pair!
    pair.reserveToken += amount
    pair.reserveWeth -= wethOut
    debit(token, seller, amount)
    return [
      { kind: 'transfer', address: token.address, from: seller, to: pair.address, value: amount },
      { kind: 'transfer', address: weth, from: pair.address, to, value: wethOut },
      sync(pair),
      pair.tokenIs0
        ? { kind: 'swap', address: pair.address, sender: router, to, amount0In: amount, amount1In: 0n, amount0Out: 0n, amount1Out: wethOut }
        : { kind: 'swap', address: pair.address, sender: router, to, amount0In: 0n, amount1In: amount, amount0Out: wethOut, amount1Out: 0n },
    ]
  }

  function sellAmount(token: Token, seller: string): bigint {
    const balance = token.balances.get(seller) ?? 0n
    return rng.chance(0.35) ? balance : scale(balance, rng.range(0.1, 0.9))
  }

  function sell(token: Token): SimTx | null {
    const pair = token.pair!
    const seller = pickHolder(token)
    if (seller === null) return null
    const amount = sellAmount(token, seller)
    const wethOut = getAmountOut(amount, pair.reserveToken, pair.reserveWeth)
    if (amount === 0n || wethOut === 0n) return null
    // Most sells unwrap to ETH through the router; some take WETH straight to the wallet.
    const to = rng.chance(0.8) ? router : seller
    return { from: seller, logs: sellLogs(token, seller, amount, wethOut, to) }
  }

  /** Sell `from` and buy `into` in one transaction: the WETH goes pair to pair. */
  function routed(from: Token, into: Token): SimTx | null {
    const seller = pickHolder(from)
    if (seller === null) return null
    const amount = sellAmount(from, seller)
    const wethMid = getAmountOut(amount, from.pair!.reserveToken, from.pair!.reserveWeth)
    const intoPair = into.pair!
    const tokenOut = getAmountOut(wethMid, intoPair.reserveWeth, intoPair.reserveToken)
    if (amount === 0n || wethMid === 0n || tokenOut === 0n) return null
    const logs = sellLogs(from, seller, amount, wethMid, intoPair.address)
    intoPair.reserveWeth += wethMid
    intoPair.reserveToken -= tokenOut
    credit(into, seller, tokenOut)
    // The second hop's WETH is already in its pair: its transfer is the first hop's.
    logs.push(...buyLogs(into, wethMid, tokenOut, from.pair!.address, seller).slice(1))
    return { from: seller, logs }
  }

  function addLiquidity(token: Token): SimTx | null {
    const pair = token.pair!
    const provider = pickHolder(token)
    if (provider === null) return null
    const amountToken = scale(token.balances.get(provider)!, rng.range(0.2, 1))
    const amountWeth = (amountToken * pair.reserveWeth) / pair.reserveToken
    const [amount0, amount1, r0, r1] = pair.tokenIs0
      ? [amountToken, amountWeth, pair.reserveToken, pair.reserveWeth]
      : [amountWeth, amountToken, pair.reserveWeth, pair.reserveToken]
    const liquidity = liquidityMinted(amount0, amount1, r0, r1, pair.lpSupply)
    if (liquidity <= 0n || amountWeth === 0n) return null
    pair.reserveToken += amountToken
    pair.reserveWeth += amountWeth
    pair.lpSupply += liquidity
    pair.lp.set(provider, (pair.lp.get(provider) ?? 0n) + liquidity)
    debit(token, provider, amountToken)
    return {
      from: provider,
      logs: [
        { kind: 'transfer', address: token.address, from: provider, to: pair.address, value: amountToken },
        { kind: 'transfer', address: weth, from: router, to: pair.address, value: amountWeth },
        { kind: 'transfer', address: pair.address, from: ZERO_ADDRESS, to: provider, value: liquidity },
        sync(pair),
        { kind: 'mint', address: pair.address, sender: router, amount0, amount1 },
      ],
    }
  }

  /** The deployer pulls all its liquidity (removeLiquidityETH): the token is dead. */
  function rug(token: Token): SimTx | null {
    token.alive = false
    const pair = token.pair!
    const owner = token.deployer.address
    const liquidity = pair.lp.get(owner) ?? 0n
    if (liquidity === 0n) return null
    token.deployer.nonce++
    const outToken = (liquidity * pair.reserveToken) / pair.lpSupply
    const outWeth = (liquidity * pair.reserveWeth) / pair.lpSupply
    pair.reserveToken -= outToken
    pair.reserveWeth -= outWeth
    pair.lpSupply -= liquidity
    pair.lp.delete(owner)
    credit(token, owner, outToken)
    const [amount0, amount1] = pair.tokenIs0 ? [outToken, outWeth] : [outWeth, outToken]
    const pairOut: LogSpec[] = [
      { kind: 'transfer', address: token.address, from: pair.address, to: router, value: outToken },
      { kind: 'transfer', address: weth, from: pair.address, to: router, value: outWeth },
    ]
    if (!pair.tokenIs0) pairOut.reverse() // the pair pays token0 first
    return {
      from: owner,
      logs: [
        { kind: 'transfer', address: pair.address, from: owner, to: pair.address, value: liquidity },
        { kind: 'transfer', address: pair.address, from: pair.address, to: ZERO_ADDRESS, value: liquidity },
        ...pairOut,
        sync(pair),
        { kind: 'burn', address: pair.address, sender: router, amount0, amount1, to: router },
        { kind: 'transfer', address: token.address, from: router, to: owner, value: outToken },
      ],
    }
  }

  function transfer(token: Token | undefined): SimTx | null {
    if (token === undefined || rng.chance(0.3)) {
      const from = rng.pick(traders)
      return { from, logs: [{ kind: 'transfer', address: weth, from, to: rng.pick(traders), value: ethToWei(rng.logRange(0.01, 5)) }] }
    }
    const from = pickHolder(token)
    if (from === null) return null
    const value = scale(token.balances.get(from)!, rng.range(0.05, 1))
    if (value === 0n) return null
    const to = rng.chance(0.3) ? freshAddress() : rng.pick(traders)
    debit(token, from, value)
    credit(token, to, value)
    return { from, logs: [{ kind: 'transfer', address: token.address, from, to, value }] }
  }

  type Action =
    | { kind: 'launch' }
    | { kind: 'addLiquidity'; token: Token }
    | { kind: 'swap' }
    | { kind: 'buy'; token: Token; trader: string }
    | { kind: 'moreLiquidity'; token: Token }
    | { kind: 'rug'; token: Token }
    | { kind: 'transfer' }

  function step(block: number): SimTx[] {
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
      if (t.fate === 'rug' && t.rugBlock <= block) queue.push({ kind: 'rug', token: t })
      else if (t.fate === 'popular' && rng.chance(0.01)) queue.push({ kind: 'moreLiquidity', token: t })
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
        case 'addLiquidity':
          tx = addInitialLiquidity(action.token, queue, at)
          break
        case 'buy':
          if (action.token.alive) tx = buy(action.token, action.trader)
          break
        case 'moreLiquidity':
          if (action.token.alive) tx = addLiquidity(action.token)
          break
        case 'rug':
          if (action.token.alive) tx = rug(action.token)
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
          else if (tradable.length > 1 && rng.chance(params.routedSwapShare)) {
            const into = pickActive()
            if (into !== undefined && into !== t && into.alive) tx = routed(t, into)
          } else tx = sell(t)
          break
        }
      }
      if (tx !== null) txs.push(tx)
    }
    return txs
  }

  return { step }
}
