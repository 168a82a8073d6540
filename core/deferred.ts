/**
 * A promise settled from outside (Node 20 lacks `Promise.withResolvers`). Its rejection is marked
 * handled: whoever awaits it still sees it, and nobody awaiting it is not an unhandled rejection.
 */
export interface Deferred<T = void> {
  promise: Promise<T>
  resolve(value: T): void
  reject(err: unknown): void
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (err: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  promise.catch(() => {})
  return { promise, resolve, reject }
}
