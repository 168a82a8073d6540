/**
 * Work run one at a time per key in this process (a key's next call waits for its previous one,
 * failed or not): two requests at once for the same key cannot both see the state before either.
 */
export function keyedSerializer(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>()
  return <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(work, work)
    const tail = next.catch(() => {})
    queues.set(key, tail)
    void tail.then(() => queues.get(key) === tail && queues.delete(key))
    return next
  }
}
