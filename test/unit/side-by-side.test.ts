import { describe, expect, it } from 'vitest'
import { sideBySide } from '../../core/side-by-side.ts'

const after = <T>(ms: number, value: T, fail = false) => new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms))

describe('sideBySide runs independent steps together', () => {
  it('answers the results in the order of the steps, not of their ends', async () => {
    expect(await sideBySide([after(60, 'a'), after(20, 2), after(40, null)] as const)).toEqual(['a', 2, null])
  })

  it('rethrows a failure only after the other steps have settled', async () => {
    let slowDone = false
    const slow = after(80, 'slow').then((v) => {
      slowDone = true
      return v
    })
    await expect(sideBySide([after(5, 'first failed', true), slow] as const)).rejects.toThrow('first failed')
    expect(slowDone).toBe(true)
  })
})
