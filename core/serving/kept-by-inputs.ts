import { LruMap } from './lru-map.ts'

/**
 * Answers made once per key and set of inputs, and given again while every input is the same
 * (the same object, or an equal primitive): the kept parts an answer is made of are new objects
 * when they change, so an unchanged answer is neither made nor written to JSON again
 * (core/serving/rendered-json.ts). At most `maxKeys` keys, least recently used dropped first.
 */
export class KeptByInputs<V> {
  private readonly last: LruMap<{ inputs: readonly unknown[]; value: V }>

  constructor(maxKeys: number) {
    this.last = new LruMap(maxKeys)
  }

  /** The answer for `key` made from `inputs`: the one kept when its inputs were these, else `make()`'s. */
  get(key: string, inputs: readonly unknown[], make: () => V): V {
    const kept = this.last.get(key)
    if (kept && sameInputs(kept.inputs, inputs)) return kept.value
    const value = make()
    this.last.set(key, { inputs, value })
    return value
  }
}

function sameInputs(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
  return true
}
