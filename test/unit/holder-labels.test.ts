import { describe, expect, it } from 'vitest'
import { ENTITY_HUB_DEGREE, entitiesOf, insidersOf, isRoundAmount, roundAllocationsOf, shareOf, ZERO_ADDRESS } from '../../products/structure/holder-labels.ts'

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const DEP = a(0xd)
const POOL = a(0xb)
const t = (block: number, from: string, to: string, value = 1n) => ({ block, from, to, value })

describe('insidersOf()', () => {
  it('follows off-market supply from the deployer (and mints) through funded wallets, in chain order, never through a pool', () => {
    const m = insidersOf(DEP, new Set([POOL]), [
      t(1, ZERO_ADDRESS, DEP, 100n),
      t(1, ZERO_ADDRESS, a(1), 5n), // minted straight to a wallet at launch
      t(2, DEP, a(2), 7n),
      t(3, a(2), a(3), 3n), // deployer-funded wallet passes it on
      t(3, a(4), a(5)), // a(4) was never funded: a(5) is no insider
      t(4, DEP, POOL), // liquidity: the pool is no insider
      t(5, POOL, a(6)), // bought from the pool (before the first swap row is impossible, but still not off-market)
      t(6, a(7), a(2)), // a(7) -> a(2): a(7) is no insider
    ])
    expect([...m.keys()].sort()).toEqual([a(1), a(2), a(3)])
    expect(m.get(a(3))).toEqual({ from: a(2), received: 3n, block: 3 })
  })

  it('a wallet funded only after it sent is not retroactively an insider of what it sent before', () => {
    const m = insidersOf(DEP, new Set(), [t(1, a(2), a(3)), t(2, DEP, a(2))])
    expect([...m.keys()]).toEqual([a(2)])
  })
})

describe('round allocations', () => {
  const SUPPLY = 10n ** 27n
  const UNIT = 10n ** 18n
  it('k/1000 of supply (0.1% to 50%) or a whole power of ten of at least 1,000 tokens', () => {
    expect(isRoundAmount(SUPPLY / 1000n, SUPPLY, UNIT)).toBe(true)
    expect(isRoundAmount(SUPPLY / 2n, SUPPLY, UNIT)).toBe(true)
    expect(isRoundAmount(SUPPLY / 2n + SUPPLY / 1000n, SUPPLY, UNIT)).toBe(false) // 50.1%: above the range, not a power of ten
    expect(isRoundAmount(SUPPLY / 1000n - 1n, SUPPLY, UNIT)).toBe(false)
    expect(isRoundAmount(1000n * UNIT, 7n * SUPPLY / 3n, UNIT)).toBe(true)
    expect(isRoundAmount(100n * UNIT, 7n * SUPPLY / 3n, UNIT)).toBe(false)
    expect(isRoundAmount(2000n * UNIT, 7n * SUPPLY / 3n, UNIT)).toBe(false)
  })
  it('counts the first round receipt off-market per wallet, never the deployer or a pool', () => {
    const m = roundAllocationsOf(DEP, new Set([POOL]), [t(1, ZERO_ADDRESS, DEP, SUPPLY), t(2, DEP, POOL, SUPPLY / 2n), t(2, DEP, a(1), SUPPLY / 100n), t(3, POOL, a(2), SUPPLY / 100n)], SUPPLY, 18)
    expect([...m]).toEqual([[a(1), { received: SUPPLY / 100n, share: '0.01' }]])
    expect(shareOf(1n, 3n)).toBe('0.333333333')
    expect(shareOf(0n, 3n)).toBe('0')
  })
})

describe('entitiesOf()', () => {
  it('links wallets by direct transfers into components named by their lowest address; hubs and the deployer link nothing', () => {
    const hub = a(0x99)
    const edges = [
      { wallet: a(5), peer: a(3) },
      { wallet: a(3), peer: a(9) },
      { wallet: a(20), peer: hub },
      { wallet: a(21), peer: hub },
      { wallet: a(30), peer: DEP },
      { wallet: a(31), peer: DEP },
    ]
    const m = entitiesOf(edges, new Set([hub, DEP]))
    expect(m.get(a(9))).toEqual({ entityId: a(3), wallets: 3 })
    expect(m.get(a(5))).toEqual({ entityId: a(3), wallets: 3 })
    for (const w of [a(20), a(21), a(30), a(31), hub, DEP]) expect(m.has(w)).toBe(false)
    expect(ENTITY_HUB_DEGREE).toBeGreaterThan(1)
  })
})
