/**
 * Run independent steps concurrently and answer their results in order. Unlike Promise.all, a
 * failure is rethrown only once every step has settled: a caller that retries never runs the
 * retry beside a step of the failed attempt still writing.
 */
export async function sideBySide<T extends readonly unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps)
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T
}
