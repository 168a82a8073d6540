import type { Store } from './types.ts'

type Entry =
  | { kind: 'string'; value: string; expiresAt: number | null }
  | { kind: 'set'; members: Set<string>; expiresAt: number | null }

/** How often expired keys nobody reads again are swept out. */
const SWEEP_MS = 30_000

/** The store for the embedded mode: one process, Redis's semantics for the operations we use. */
export function createMemoryStore(): Store {
  const entries = new Map<string, Entry>()
  let closed = false

  const sweeper = setInterval(() => {
    const now = Date.now()
    for (const [key, e] of entries) if (e.expiresAt !== null && e.expiresAt <= now) entries.delete(key)
  }, SWEEP_MS)
  sweeper.unref()

  function live(key: string): Entry | undefined {
    const e = entries.get(key)
    if (e && e.expiresAt !== null && e.expiresAt <= Date.now()) {
      entries.delete(key)
      return undefined
    }
    return e
  }

  function liveString(key: string): Extract<Entry, { kind: 'string' }> | undefined {
    const e = live(key)
    if (e && e.kind !== 'string') throw wrongType(key)
    return e
  }

  function liveSet(key: string): Extract<Entry, { kind: 'set' }> | undefined {
    const e = live(key)
    if (e && e.kind !== 'set') throw wrongType(key)
    return e
  }

  function check(): void {
    if (closed) throw new Error('memory store is closed')
  }

  return {
    kind: 'memory',
    async get(key) {
      check()
      return liveString(key)?.value ?? null
    },
    async set(key, value, ttlMs) {
      check()
      entries.set(key, { kind: 'string', value, expiresAt: expiry(ttlMs) })
    },
    async setIfAbsent(key, value, ttlMs) {
      check()
      if (live(key)) return false
      entries.set(key, { kind: 'string', value, expiresAt: expiry(ttlMs) })
      return true
    },
    async del(key) {
      check()
      entries.delete(key)
    },
    async incr(key, by, ttlMs) {
      check()
      if (!Number.isSafeInteger(by)) throw new Error(`incr(): ${by} is not an integer`)
      const e = liveString(key)
      if (!e) {
        entries.set(key, { kind: 'string', value: String(by), expiresAt: expiry(ttlMs) })
        return by
      }
      if (!/^-?\d+$/.test(e.value)) throw new Error(`incr(): the value of ${key} is not an integer`)
      const next = Number(e.value) + by
      e.value = String(next)
      return next
    },
    async ttl(key) {
      check()
      const e = live(key)
      return e && e.expiresAt !== null ? Math.max(1, e.expiresAt - Date.now()) : null
    },
    async sadd(key, member) {
      check()
      let e = liveSet(key)
      if (!e) {
        e = { kind: 'set', members: new Set(), expiresAt: null }
        entries.set(key, e)
      }
      if (e.members.has(member)) return false
      e.members.add(member)
      return true
    },
    async srem(key, member) {
      check()
      const e = liveSet(key)
      if (!e || !e.members.delete(member)) return false
      // Like Redis, an empty set is no key at all.
      if (e.members.size === 0) entries.delete(key)
      return true
    },
    async smembers(key) {
      check()
      return [...(liveSet(key)?.members ?? [])]
    },
    async scard(key) {
      check()
      return liveSet(key)?.members.size ?? 0
    },
    async ping() {
      check()
    },
    async close() {
      closed = true
      clearInterval(sweeper)
      entries.clear()
    },
  }
}

function expiry(ttlMs: number | undefined): number | null {
  if (ttlMs === undefined) return null
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) throw new Error(`ttlMs must be a positive number, got ${ttlMs}`)
  return Date.now() + Math.ceil(ttlMs)
}

function wrongType(key: string): Error {
  return new Error(`WRONGTYPE: ${key} holds a value of another kind`)
}
