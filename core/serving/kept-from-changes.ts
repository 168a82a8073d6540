/**
 * A value read whole once (and again after a reset: a rebuild, a reorg), then kept current from
 * the keys each change names: `update` reads those keys only and folds them in, so a change costs
 * a keyed read, not a scan. Keys told while a read runs are folded before the value is given; a
 * failed read keeps its keys for the next ask.
 */
export interface KeptFromChanges<S> {
  /** The value, current with every change told so far. */
  value(): Promise<S>
  /** These keys changed: fold them in before the value is given again. */
  changed(keys: Iterable<string>): void
  /** Everything may have changed: read the value whole again. */
  reset(): void
}

export function keptFromChanges<S>(read: {
  whole(): Promise<S>
  /** The value with `keys` read again; may return a new object (kept ones are not mutated by us). */
  update(kept: S, keys: string[]): Promise<S>
}): KeptFromChanges<S> {
  let kept: { value: S } | null = null
  const pending = new Set<string>()
  let resets = 0
  let updating: Promise<S> | null = null

  /**
   * Reads until nothing is pending (keys told during a read are read too). It stops being the
   * update to join in the same turn as it finds nothing pending: a key told after that starts a
   * new one, not a join of one that already gave its value.
   */
  async function bringUp(): Promise<S> {
    try {
      for (;;) {
        const at = resets
        if (kept === null) {
          // What is pending is in the whole read, which starts after it was told.
          pending.clear()
          const whole = await read.whole()
          if (at === resets) kept = { value: whole }
          continue
        }
        if (pending.size === 0) {
          updating = null
          return kept.value
        }
        const keys = [...pending]
        pending.clear()
        let value: S
        try {
          value = await read.update(kept.value, keys)
        } catch (err) {
          if (at === resets) for (const k of keys) pending.add(k)
          throw err
        }
        if (at === resets) kept = { value }
      }
    } catch (err) {
      updating = null
      throw err
    }
  }

  return {
    value() {
      // While an update runs, what it reads is no longer pending, but not yet in the value.
      if (kept !== null && pending.size === 0 && updating === null) return Promise.resolve(kept.value)
      // bringUp awaits before it can end (something is pending or nothing is kept), so it is
      // assigned before it clears itself.
      updating ??= bringUp()
      return updating
    },
    changed(keys) {
      for (const k of keys) pending.add(k)
    },
    reset() {
      resets++
      kept = null
      pending.clear()
    },
  }
}
