import { deferred, type Deferred } from '../deferred.ts'

/**
 * Lookups by key that share statements: a key asked while no lookup runs is read at once, alone;
 * keys asked while one runs wait for it and are then read together, up to `maxKeys` a statement
 * (the same key asked twice while waiting is read once). A flood of asks from many connections
 * then costs the engine a statement per round of them, not one per ask; a lone ask waits for
 * nothing. `load` answers the keys it found; the others get `absent`. A failed load fails the asks
 * it carried, and the next round goes on.
 */
export function createKeyBatcher<V>(load: (keys: string[]) => Promise<Map<string, V>>, opts: { maxKeys: number; absent: V }): (key: string) => Promise<V> {
  let running = false
  const waiting = new Map<string, Deferred<V>>()

  function run(group: Map<string, Deferred<V>>): void {
    running = true
    let loaded: Promise<Map<string, V>>
    try {
      loaded = load([...group.keys()])
    } catch (err) {
      loaded = Promise.reject(err)
    }
    // The next round starts before this one's asks are answered, so an ask made by a caller
    // woken by this answer finds the batcher in its true state (running or not).
    loaded.then(
      (found) => {
        next()
        for (const [key, d] of group) d.resolve(found.has(key) ? found.get(key)! : opts.absent)
      },
      (err: unknown) => {
        next()
        for (const d of group.values()) d.reject(err)
      },
    )
  }

  function next(): void {
    running = false
    if (waiting.size) run(nextGroup())
  }

  function nextGroup(): Map<string, Deferred<V>> {
    const group = new Map<string, Deferred<V>>()
    for (const [key, d] of waiting) {
      if (group.size >= opts.maxKeys) break
      group.set(key, d)
      waiting.delete(key)
    }
    return group
  }

  return (key) => {
    const queued = waiting.get(key)
    if (queued) return queued.promise
    const d = deferred<V>()
    if (running) waiting.set(key, d)
    else run(new Map([[key, d]]))
    return d.promise
  }
}
