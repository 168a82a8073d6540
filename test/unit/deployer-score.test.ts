import { describe, expect, it } from 'vitest'
import { deployerScore, scoreBand } from '../../products/token/deployer-score.ts'

const WETH = 10n ** 18n

describe('deployerScore()', () => {
  it('deployerScore() is null without launches', () => {
    expect(deployerScore({ launched: 0, real: 0, dead: 0, bestVolumeWei: 0n, insiderPrep: false })).toBeNull()
  })

  it.each([
    // 40*0 + 20*log10(1)/3 + 0 + 20*(1-1) = 0
    [{ launched: 3, real: 0, dead: 3, bestVolumeWei: 0n, insiderPrep: false }, 0],
    // 40*(2/3)=26.667 + 20*log10(51)/3=11.388 + 20*0.4=8 + 20*(2/3)=13.333 → 59.39 → 59
    [{ launched: 3, real: 2, dead: 1, bestVolumeWei: 50n * WETH, insiderPrep: false }, 59],
    // 40 + 20*log10(201)/3=15.374 + 12 + 20 = 87.37 → 87
    [{ launched: 3, real: 3, dead: 0, bestVolumeWei: 200n * WETH, insiderPrep: false }, 87],
    // the same with the insider flag: 72.37 → 72
    [{ launched: 3, real: 3, dead: 0, bestVolumeWei: 200n * WETH, insiderPrep: true }, 72],
    // 40 + 20 + 20 + 20 = 100 (1,000 WETH and 5 real)
    [{ launched: 5, real: 5, dead: 0, bestVolumeWei: 1000n * WETH, insiderPrep: false }, 100],
    // 40*0.1=4 + 20*log10(2)/3=2.007 + 20*0.2=4 + 20*0.1=2 - 15 → -2.99 → clamped 0
    [{ launched: 10, real: 1, dead: 9, bestVolumeWei: 1n * WETH, insiderPrep: true }, 0],
  ])('deployerScore(%o) is %i', (track, expected) => {
    expect(deployerScore(track)).toBe(expected)
  })

  it.each([
    [0, 'poor'], [29, 'poor'], [30, 'weak'], [49, 'weak'], [50, 'mixed'], [69, 'mixed'], [70, 'proven'], [84, 'proven'], [85, 'elite'], [100, 'elite'],
  ] as const)('scoreBand(%i) is %s', (score, band) => {
    expect(scoreBand(score)).toBe(band)
  })
})
