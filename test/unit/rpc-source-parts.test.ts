import { describe, expect, it } from 'vitest'
import { AdaptiveRange } from '../../pipelines/sources/rpc/adaptive-range.ts'
import { isRangeError, withRetry } from '../../pipelines/sources/rpc/retry.ts'

describe('AdaptiveRange', () => {
  it('AdaptiveRange shrinks by half on refusal, down to 1, and grows after quiet ranges up to max', () => {
    const r = new AdaptiveRange(100, 400, 1000)
    r.shrink()
    expect(r.size).toBe(50)
    for (let i = 0; i < 10; i++) r.shrink()
    expect(r.size).toBe(1)
    r.fitted(10)
    expect(r.size).toBe(2)
    for (let i = 0; i < 20; i++) r.fitted(10)
    expect(r.size).toBe(400)
    r.fitted(5000) // a busy range does not grow it
    expect(r.size).toBe(400)
  })
})

describe('withRetry()', () => {
  it('withRetry() retries failures with backoff and returns the first success', async () => {
    let calls = 0
    const delays: number[] = []
    const v = await withRetry(
      async () => {
        if (++calls < 3) throw new Error('connection reset')
        return 'ok'
      },
      { baseMs: 5, onRetry: (_e, _a, d) => delays.push(d) },
    )
    expect(v).toBe('ok')
    expect(calls).toBe(3)
    expect(delays).toHaveLength(2)
    for (const [i, d] of delays.entries()) expect(d).toBeLessThanOrEqual(5 * 2 ** i)
  })

  it('withRetry() gives up after the attempts and does not retry fatal errors', async () => {
    let calls = 0
    await expect(withRetry(async () => { calls++; throw new Error('down') }, { attempts: 3, baseMs: 1 })).rejects.toThrow('down')
    expect(calls).toBe(3)
    calls = 0
    await expect(withRetry(async () => { calls++; throw new Error('query returned more than 10000 results') }, { fatal: isRangeError, baseMs: 1 })).rejects.toThrow()
    expect(calls).toBe(1)
  })

  it('isRangeError() recognises the usual "range too large" answers of nodes', () => {
    for (const m of ['query returned more than 10000 results', 'block range is too large', 'Log response size exceeded', 'exceed maximum block range: 2000']) {
      expect(isRangeError(new Error(m)), m).toBe(true)
    }
    expect(isRangeError(new Error('ECONNREFUSED'))).toBe(false)
  })
})
