import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, toEventSelector } from 'viem'
import { describe, expect, it } from 'vitest'
import { erc20Abi, TRANSFER_TOPIC0 } from '../../pipelines/decode/erc20.ts'
import { type DecodedEvent, decodeLog, decoders, type LogInput } from '../../pipelines/decode/index.ts'
import { PAIR_CREATED_TOPIC0, uniswapV2FactoryAbi } from '../../pipelines/decode/uniswap-v2-factory.ts'
import { BURN_TOPIC0, MINT_TOPIC0, SWAP_TOPIC0, SYNC_TOPIC0, uniswapV2PairAbi } from '../../pipelines/decode/uniswap-v2-pair.ts'
import { createRng, type Rng } from '../../pipelines/sim/prng.ts'
import { expectMalformed, randomAddress, withRandomCase } from '../setup/decode-cases.ts'

const PER_TYPE = 2000
const MAX256 = 2n ** 256n - 1n
const MAX112 = 2n ** 112n - 1n

function randomUint(rng: Rng, max: bigint): bigint {
  const bits = max === MAX256 ? 256 : 112
  const edges = [0n, 1n, max, max - 1n, max / 2n, 2n ** 64n, 10n ** 18n]
  if (rng.chance(0.15)) return rng.pick(edges)
  // Random bit length, so small and huge values are both common.
  const len = 1 + rng.int(bits)
  let v = 0n
  for (let i = 0; i < len; i += 32) v = (v << 32n) | BigInt(rng.u32())
  return v & ((1n << BigInt(len)) - 1n)
}

type Kind = 'transfer' | 'pairCreated' | 'swap' | 'sync' | 'mint' | 'burn'

function generate(rng: Rng, kind: Kind): LogInput {
  const addr = () => randomAddress(rng, 0.03)
  const address = addr()
  const u = () => randomUint(rng, MAX256)
  let topics: readonly unknown[]
  let data: Hex
  switch (kind) {
    case 'transfer':
      topics = encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from: addr(), to: addr() } })
      data = encodeAbiParameters([{ type: 'uint256' }], [u()])
      break
    case 'pairCreated':
      topics = encodeEventTopics({ abi: uniswapV2FactoryAbi, eventName: 'PairCreated', args: { token0: addr(), token1: addr() } })
      data = encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [addr(), u()])
      break
    case 'swap':
      topics = encodeEventTopics({ abi: uniswapV2PairAbi, eventName: 'Swap', args: { sender: addr(), to: addr() } })
      data = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }], [u(), u(), u(), u()])
      break
    case 'sync':
      topics = encodeEventTopics({ abi: uniswapV2PairAbi, eventName: 'Sync' })
      data = encodeAbiParameters([{ type: 'uint112' }, { type: 'uint112' }], [randomUint(rng, MAX112), randomUint(rng, MAX112)])
      break
    case 'mint':
      topics = encodeEventTopics({ abi: uniswapV2PairAbi, eventName: 'Mint', args: { sender: addr() } })
      data = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [u(), u()])
      break
    case 'burn':
      topics = encodeEventTopics({ abi: uniswapV2PairAbi, eventName: 'Burn', args: { sender: addr(), to: addr() } })
      data = encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [u(), u()])
      break
  }
  return withRandomCase(rng, { address, topics: [...(topics as string[])], data })
}

const VIEM_ABI = new Map<string, readonly unknown[]>([
  [TRANSFER_TOPIC0, erc20Abi],
  [PAIR_CREATED_TOPIC0, uniswapV2FactoryAbi],
  [SWAP_TOPIC0, [uniswapV2PairAbi[0]]],
  [SYNC_TOPIC0, [uniswapV2PairAbi[1]]],
  [MINT_TOPIC0, [uniswapV2PairAbi[2]]],
  [BURN_TOPIC0, [uniswapV2PairAbi[3]]],
])

/** What our decoder must return, derived from viem's decoding of the same log. */
function expectedFromViem(log: LogInput): DecodedEvent {
  const abi = VIEM_ABI.get(log.topics[0]!)!
  const { eventName, args } = decodeEventLog({ abi, topics: log.topics as [Hex], data: log.data as Hex }) as {
    eventName: string
    args: Record<string, unknown>
  }
  const a = (k: string) => (args[k] as string).toLowerCase()
  const n = (k: string) => args[k] as bigint
  const address = log.address.toLowerCase()
  switch (eventName) {
    case 'Transfer':
      return { type: 'erc20_transfer', address, from: a('from'), to: a('to'), value: n('value') }
    case 'PairCreated':
      return { type: 'v2_pair_created', address, token0: a('token0'), token1: a('token1'), pair: a('pair'), allPairsLength: n('allPairsLength') }
    case 'Swap':
      return {
        type: 'v2_swap', address, sender: a('sender'), to: a('to'),
        amount0In: n('amount0In'), amount1In: n('amount1In'), amount0Out: n('amount0Out'), amount1Out: n('amount1Out'),
      }
    case 'Sync':
      return { type: 'v2_sync', address, reserve0: n('reserve0'), reserve1: n('reserve1') }
    case 'Mint':
      return { type: 'v2_mint', address, sender: a('sender'), amount0: n('amount0'), amount1: n('amount1') }
    case 'Burn':
      return { type: 'v2_burn', address, sender: a('sender'), to: a('to'), amount0: n('amount0'), amount1: n('amount1') }
  }
  throw new Error(`unexpected ${eventName}`)
}

const KINDS: Kind[] = ['transfer', 'pairCreated', 'swap', 'sync', 'mint', 'burn']

describe('decodeLog()', () => {
  it('decodeLog() registers each decoder under the keccak of its signature', () => {
    expect(decoders.length).toBe(13) // v2 and ERC20 here; v3 and v4 in decode-v3v4.test.ts
    for (const d of decoders) expect(toEventSelector(d.event)).toBe(d.topic0)
  })

  for (const kind of KINDS) {
    it(`decodeLog() agrees with viem decodeEventLog on ${PER_TYPE} random ${kind} logs`, () => {
      const rng = createRng(`decode-diff/${kind}`)
      for (let i = 0; i < PER_TYPE; i++) {
        const log = generate(rng, kind)
        const ours = decodeLog(log)
        expect(ours).toEqual(expectedFromViem(log))
        for (const [k, v] of Object.entries(ours!)) {
          if (typeof v === 'string' && v.startsWith('0x')) expect(v, k).toMatch(/^0x[0-9a-f]{40}$/)
        }
      }
    })
  }

  it('decodeLog() reads the low 20 bytes of an address topic with dirty high bytes, as viem does', () => {
    const rng = createRng('decode-dirty')
    for (let i = 0; i < 200; i++) {
      const log = generate(rng, 'swap')
      log.topics = log.topics.map((t, j) => (j === 0 ? t : '0x' + rng.hex(24) + t.slice(26)))
      expect(decodeLog(log)).toEqual(expectedFromViem(log))
    }
  })

  it('decodeLog() returns the decoded fields of a known Transfer exactly', () => {
    const log = {
      address: '0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48',
      topics: [
        TRANSFER_TOPIC0,
        '0x000000000000000000000000AbCdEf0123456789aBcDeF0123456789AbCdEf01',
        '0x0000000000000000000000000000000000000000000000000000000000000000',
      ],
      data: '0x' + 'f'.repeat(64),
    }
    expect(decodeLog(log)).toEqual({
      type: 'erc20_transfer',
      address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      from: '0xabcdef0123456789abcdef0123456789abcdef01',
      to: '0x0000000000000000000000000000000000000000',
      value: MAX256,
    })
  })

  it('decodeLog() finds a topic0 written in upper case', () => {
    const log = generate(createRng('upper'), 'sync')
    const upper = { ...log, topics: ['0x' + log.topics[0].slice(2).toUpperCase()] }
    expect(decodeLog(upper)).toEqual(decodeLog(log))
  })

  it('decodeLog() returns null for unknown events, no topics, and a 4-topic (ERC721) Transfer', () => {
    const rng = createRng('null')
    const base = generate(rng, 'transfer')
    expect(decodeLog({ ...base, topics: [] })).toBeNull()
    expect(decodeLog({ ...base, topics: ['0x' + 'ab'.repeat(32), ...base.topics.slice(1)] })).toBeNull()
    // ERC721 Transfer(from, to, tokenId): tokenId indexed, no data.
    expect(decodeLog({ ...base, topics: [...base.topics, '0x' + '0'.repeat(63) + '7'], data: '0x' })).toBeNull()
  })

  describe('malformed logs', () => {
    const rng = createRng('malformed')
    const logs = Object.fromEntries(KINDS.map((k) => [k, generate(rng, k)])) as Record<Kind, LogInput>
    const cases: [string, LogInput][] = [
      ['Transfer with 2 topics', { ...logs.transfer, topics: logs.transfer.topics.slice(0, 2) }],
      ['Transfer with only topic0 (unindexed old-style)', { ...logs.transfer, topics: logs.transfer.topics.slice(0, 1), data: '0x' + '0'.repeat(192) }],
      ['Transfer with empty data', { ...logs.transfer, data: '0x' }],
      ['Transfer with 31 data bytes', { ...logs.transfer, data: logs.transfer.data.slice(0, 64) }],
      ['Transfer with an odd number of hex digits', { ...logs.transfer, data: logs.transfer.data + '0' }],
      ['Transfer with non-hex data', { ...logs.transfer, data: '0x' + 'zz'.repeat(32) }],
      ['Transfer with a short topic', { ...logs.transfer, topics: [logs.transfer.topics[0], '0x1234', logs.transfer.topics[2]] }],
      ['PairCreated with one data word', { ...logs.pairCreated, data: logs.pairCreated.data.slice(0, 66) }],
      ['PairCreated with 4 topics', { ...logs.pairCreated, topics: [...logs.pairCreated.topics, logs.pairCreated.topics[1]] }],
      ['Swap with 2 topics', { ...logs.swap, topics: logs.swap.topics.slice(0, 2) }],
      ['Swap with 3 data words', { ...logs.swap, data: logs.swap.data.slice(0, 2 + 64 * 3) }],
      ['Sync with an extra topic', { ...logs.sync, topics: [...logs.sync.topics, '0x' + '0'.repeat(64)] }],
      ['Sync with 63 data bytes', { ...logs.sync, data: logs.sync.data.slice(0, 2 + 126) }],
      ['Mint with 3 topics', { ...logs.mint, topics: [...logs.mint.topics, logs.mint.topics[1]] }],
      ['Mint with no data', { ...logs.mint, data: '0x' }],
      ['Burn with 2 topics', { ...logs.burn, topics: logs.burn.topics.slice(0, 2) }],
      ['Burn with one data word', { ...logs.burn, data: logs.burn.data.slice(0, 66) }],
    ]
    expectMalformed(cases)

    it('decodeLog() never throws on truncated or re-shaped known logs, and what it decodes viem decodes the same', () => {
      const fuzz = createRng('fuzz')
      for (let i = 0; i < 3000; i++) {
        const good = generate(fuzz, fuzz.pick(KINDS))
        const topics = good.topics.slice(0, 1 + fuzz.int(4))
        while (fuzz.chance(0.2) && topics.length < 4) topics.push('0x' + fuzz.hex(64))
        const cut = fuzz.chance(0.5) ? good.data.length : 2 + fuzz.int(good.data.length)
        const log = { address: good.address, topics, data: good.data.slice(0, cut) + (fuzz.chance(0.1) ? 'g' : '') }
        const r = decodeLog(log)
        // decodeLog trusts the bus schema for hex characters; compare where viem can read the bytes.
        if (r !== null && r.type !== 'malformed' && /^0x([0-9a-fA-F]{2})*$/.test(log.data)) {
          expect(r).toEqual(expectedFromViem(log))
        }
      }
    })
  })
})
