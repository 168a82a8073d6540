import { describe, expect, it } from 'vitest'
import { deployerRecordOf, deployerTokenOf } from '../../products/token/deployer-state.ts'
import { DEAD_AFTER_IDLE_SECONDS } from '../../products/token/real-token.ts'
import { tokenRecordOf, type TokenStateRow } from '../../products/token/token-state.ts'

const NOW = 1_800_000_000

/** A token_state row with the flags and figures a deployer's record reads drawn from `pick`. */
function rowOf(i: number, pick: (n: number) => number): TokenStateRow {
  const added = BigInt(pick(3) * 1000)
  return {
    token: `0x${i.toString(16).padStart(40, '0')}`, present: pick(4) === 0 ? 0 : 1, deployer: pick(5) === 0 ? '' : `0xd${pick(3)}`,
    name: 'T', symbol: `T${i}`, decimals: 18, created: pick(4) === 0 ? 0 : 1, created_block: '10', created_at: '2027-01-15 08:00:00.000',
    launched: pick(3) === 0 ? 0 : 1, launch_pool: '0xpool', launch_protocol: 'uniswap_v3', launch_block: '11', launched_at: '2027-01-15 08:00:02.000',
    visible_us: '0', swaps: String(pick(3)), weth_volume: String(BigInt(pick(1000)) * 10n ** 15n), traders: '1', first_swap_block: '12',
    last_swap_block: '12', last_swap_time: '2027-01-15 08:00:04.000', is_real: pick(2), real_block: '12', real_at: '2027-01-15 08:00:04.000',
    quoted: 0, quote: ['0', '0', '', '', '0'], eth_usd: null, minted: '1000', burned: '0',
    liquidity_added: String(added), liquidity_removed: String((added * BigInt(pick(11))) / 10n),
    prelaunch_recipients: String(pick(4)), last_activity: pick(2) === 0 ? NOW - DEAD_AFTER_IDLE_SECONDS - 1 - pick(100) : NOW - pick(100),
  }
}

describe('deployerTokenOf()', () => {
  it('counts a row exactly as the token record made of the whole row would: present, created, launched, real, dead, insider prep, volume', () => {
    let seed = 7
    const pick = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return (seed >>> 12) % n
    }
    let counted = 0
    for (let i = 0; i < 2_000; i++) {
      const row = rowOf(i, pick)
      const record = tokenRecordOf(row, NOW)
      const expected = record?.deployer && record.launch
        ? { token: record.token, symbol: record.symbol, real: record.realBlock !== null, dead: record.dead !== null, insiderPrep: record.insiderPrep, wethVolumeWei: record.wethVolumeWei }
        : undefined
      expect(deployerTokenOf(row, NOW)).toEqual(expected)
      if (expected) counted++
    }
    // The draw reaches both sides: rows that count and rows that do not.
    expect(counted).toBeGreaterThan(200)
    expect(counted).toBeLessThan(1_800)
  })

  it('a tombstone names its deployer but counts for none', () => {
    const row = { ...rowOf(1, () => 1), present: 0 }
    expect(row.deployer).not.toBe('')
    expect(deployerTokenOf(row, NOW)).toBeUndefined()
  })

  it('deployerRecordOf() counts launches, real, dead and insider prep, and names the launch with most volume the best', () => {
    const tokens = [
      { token: '0xa', symbol: 'A', real: true, dead: false, insiderPrep: false, wethVolumeWei: 5n },
      { token: '0xb', symbol: 'B', real: false, dead: true, insiderPrep: true, wethVolumeWei: 9n },
      { token: '0xc', symbol: 'C', real: true, dead: true, insiderPrep: false, wethVolumeWei: 1n },
    ]
    const d = deployerRecordOf('0xd', tokens)!
    expect({ launched: d.launched, real: d.real, dead: d.dead, prep: d.insiderPrepLaunches, flag: d.insiderPrep, best: d.best })
      .toEqual({ launched: 3, real: 2, dead: 2, prep: 1, flag: true, best: { token: '0xb', symbol: 'B', wethVolumeWei: 9n } })
    expect(deployerRecordOf('0xd', [])).toBeUndefined()
  })
})
