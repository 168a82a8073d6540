import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../core/config.ts'

describe('simulator backfill configuration', () => {
  it('a new world starts with 24 h of history by default: 43 200 blocks of 2 s', () => {
    expect(loadConfig({}).simulatorBackfillBlocks).toBe(43_200)
  })

  it('SIMULATOR_BACKFILL_HOURS is counted in blocks of SIMULATOR_BLOCK_SECONDS', () => {
    expect(loadConfig({ SIMULATOR_BACKFILL_HOURS: '1.5', SIMULATOR_BLOCK_SECONDS: '4' }).simulatorBackfillBlocks).toBe(1_350)
    expect(loadConfig({ SIMULATOR_BACKFILL_HOURS: '0' }).simulatorBackfillBlocks).toBe(0)
  })

  it('SIMULATOR_BACKFILL_BLOCKS, when set, wins over the hours', () => {
    expect(loadConfig({ SIMULATOR_BACKFILL_BLOCKS: '200', SIMULATOR_BACKFILL_HOURS: '48' }).simulatorBackfillBlocks).toBe(200)
  })

  it('a bad backfill value stops the process with one line naming the variable', () => {
    expect(() => loadConfig({ SIMULATOR_BACKFILL_HOURS: 'a day' })).toThrow(new ConfigError('invalid SIMULATOR_BACKFILL_HOURS="a day": expected a number of hours'))
    expect(() => loadConfig({ SIMULATOR_BACKFILL_HOURS: '-1' })).toThrow(/invalid SIMULATOR_BACKFILL_HOURS="-1": expected >= 0/)
    expect(() => loadConfig({ SIMULATOR_BACKFILL_BLOCKS: '1.5' })).toThrow(/invalid SIMULATOR_BACKFILL_BLOCKS="1.5": expected an integer/)
  })
})
