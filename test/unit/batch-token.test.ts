import { describe, expect, it } from 'vitest'
import type { BusMessage } from '../../core/bus/types.ts'
import { offsetRangeToken } from '../../pipelines/consumer/batch-token.ts'

const msgs = (values: string[], from = 0): BusMessage[] =>
  values.map((value, i) => ({ topic: 't', partition: 2, offset: String(from + i), timestamp: Date.now() + i, key: 'k', value }))

describe('offsetRangeToken()', () => {
  it('offsetRangeToken() gives a redelivered batch the same token, whatever its delivery time', () => {
    const a = offsetRangeToken('t', 2, msgs(['a', 'b', 'c'], 10))
    expect(a).toMatch(/^t:2:10-12:[0-9a-f]{16}$/)
    expect(offsetRangeToken('t', 2, msgs(['a', 'b', 'c'], 10))).toBe(a)
  })

  it('offsetRangeToken() gives other records at the same offsets another token (an in-process bus numbers from 0 after a restart)', () => {
    expect(offsetRangeToken('t', 2, msgs(['a', 'b'], 0))).not.toBe(offsetRangeToken('t', 2, msgs(['a', 'x'], 0)))
    expect(offsetRangeToken('t', 2, msgs(['a', 'b'], 0))).not.toBe(offsetRangeToken('t', 2, msgs(['a', 'b'], 1)))
  })
})
