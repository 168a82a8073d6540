import { describe, expect, it } from 'vitest'
import { KeptByInputs } from '../../core/serving/kept-by-inputs.ts'

describe('KeptByInputs', () => {
  it('gives the kept answer while every input is the same object or an equal value, and makes it again when one is not', () => {
    const kept = new KeptByInputs<{ n: number }>(2)
    let made = 0
    const make = () => ({ n: ++made })
    const record = { a: 1 }
    const first = kept.get('k', [record, 7, 'x'], make)
    expect(kept.get('k', [record, 7, 'x'], make)).toBe(first)
    // An equal but other object is another input; so is another value, or one input more.
    expect(kept.get('k', [{ a: 1 }, 7, 'x'], make)).not.toBe(first)
    expect(kept.get('k', [record, 8, 'x'], make).n).toBe(3)
    expect(kept.get('k', [record, 8, 'x', undefined], make).n).toBe(4)
    // Keys are kept apart, and at most maxKeys of them (least recently used dropped).
    kept.get('j', [record], make)
    kept.get('i', [record], make)
    expect(made).toBe(6)
    kept.get('k', [record, 8, 'x', undefined], make)
    expect(made).toBe(7)
  })
})
