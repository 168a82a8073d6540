import { describe, expect, it } from 'vitest'
import { TokenFacts } from '../../products/token/token-facts.ts'
import type { TokenSourceRow } from '../../products/token/token-state-inputs.ts'

const row = (source: TokenSourceRow['source'], key: string, fields: Record<string, unknown>): TokenSourceRow => ({ source, key, fields: JSON.stringify(fields) })

describe('the frozen facts a chain processor keeps', () => {
  it('name the deployer a token\'s rows will name: its creation\'s, else the one it went on naming, else none', () => {
    const facts = new TokenFacts(10)
    facts.keep(['0xa', '0xb', '0xc', '0xd'], [
      row('created', '0xa', { deployer: '0xd1', symbol: 'A' }),
      row('kept', '0xa', { prelaunch_recipients: 3, deployer: '0xold' }),
      // A reorg took 0xb's creation away: it goes on naming the deployer it had.
      row('kept', '0xb', { prelaunch_recipients: 0, deployer: '0xd2' }),
      row('launched', '0xc', { launch_pool: '0xpool' }),
      row('created', '0xd', { deployer: '', symbol: 'D' }),
    ], new Set())
    expect(facts.deployerOf('0xa')).toBe('0xd1')
    expect(facts.deployerOf('0xb')).toBe('0xd2')
    expect(facts.deployerOf('0xc')).toBeUndefined()
    expect(facts.deployerOf('0xd')).toBeUndefined()
    expect(facts.deployerOf('0xe')).toBeUndefined()
    facts.forget(['0xa'])
    expect(facts.deployerOf('0xa')).toBeUndefined()
  })
})
