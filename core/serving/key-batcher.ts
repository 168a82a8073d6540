import { deferred, type Deferred } from '../deferred.ts'

/**
 * Lookups by key that share statements: a key asked while no lookup runs is read at once, alone;
 * keys asked while one runs wait for it and are then read together, up to `maxKeys` a statement
 * (the same key asked twice while waiting is read once). A flood of asks from many connections
 * then costs the engine a statement per round of them, not one per ask; a lone ask waits for
 * nothing. `load` answers the keys it found; the others get `absent`. A failed load fails the asks
 * it carried, and the next round goes on.
 *
 * Asks carry a group (`G`, e.g. the block they are answered at): only keys of one group are read
 * together, and the group waiting longest goes next.
 */
export function createKeyBatcher<V, G = void>(
  load: (keys: string[], group: G) => Promise<Map<string, V>>,
  opts: { maxKeys: number; absent: V },
): (key: string, group: G) => Promise<V> {
  let running = false
  const waiting = new Map<G, Map<string, Deferred<V>>>()

  function run(group: G, asks: Map<string, Deferred<V>>): void {
    running = true
    let loaded: Promise<Map<string, V>>
    try {
      loaded = load([...asks.keys()], group)
    } catch (err) {
      loaded = Promise.reject(err)
    }
    // The next round starts before this one's asks are answered, so an ask made by a caller
    // woken by this answer finds the batcher in its true state (running or not).
    loaded.then(
      (found) => {
        next()
        for (const [key, d] of asks) d.resolve(found.has(key) ? found.get(key)! : opts.absent)
      },
      (err: unknown) => {
        next()
        for (const d of asks.values()) d.reject(err)
      },
    )
  }

  function next(): void {
    running = false
    const oldest = waiting.entries().next()
    if (oldest.done) return
    const [group, queued] = oldest.value
    const asks = new Map<string, Deferred<V>>()
    for (const [key, d] of queued) {
      if (asks.size >= opts.maxKeys) break
      asks.set(key, d)
      queued.delete(key)
    }
    if (queued.size === 0) waiting.delete(group)
    run(group, asks)
  }

  return (key, group) => {
    let queued = waiting.get(group)
    const asked = queued?.get(key)
    if (asked) return asked.promise
    const d = deferred<V>()
    if (!running) run(group, new Map([[key, d]]))
    else {
      if (!queued) waiting.set(group, (queued = new Map()))
      queued.set(key, d)
    }
    return d.promise
  }
}
