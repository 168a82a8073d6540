/**
 * The store for quotas, payment nonces and serving caches: one interface, Redis and in-memory.
 * Every operation is atomic on its own; multiple API processes share one Redis store.
 *
 * Nothing here is customer data (that lives in ClickHouse): the store may be lost and rebuilt.
 * An unreachable store rejects with DependencyUnavailableError (core/dependency.ts) within its
 * command timeout, never hangs.
 */
export interface Store {
  readonly kind: 'memory' | 'redis'
  get(key: string): Promise<string | null>
  /** Set with an optional time to live in milliseconds. */
  set(key: string, value: string, ttlMs?: number): Promise<void>
  /** Set only when absent; true when this call set it (the basis of "spent once"). */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>
  del(key: string): Promise<void>
  /**
   * Add `by` to an integer counter and return the new value. The time to live is applied
   * when the counter is created, so a fixed window expires as a whole (quota windows).
   */
  incr(key: string, by: number, ttlMs: number): Promise<number>
  /** Remaining time to live in ms; null when the key is absent or has none. */
  ttl(key: string): Promise<number | null>
  /** Set members. */
  sadd(key: string, member: string): Promise<boolean>
  srem(key: string, member: string): Promise<boolean>
  smembers(key: string): Promise<string[]>
  scard(key: string): Promise<number>
  ping(): Promise<void>
  close(): Promise<void>
}
