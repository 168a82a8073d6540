import type {
  BatchControl,
  Bus,
  BusBatch,
  BusMessage,
  BusRecord,
  SubscribeOptions,
  Subscription,
} from './types.ts'
import { DEFAULT_MAX_BATCH } from './types.ts'

export interface MemoryBusOptions {
  /** Partitions per topic; records are placed by a hash of their key. Default 1. */
  partitions?: number
  /**
   * Messages kept per partition (Kafka's retention, by count): beyond it the oldest are dropped,
   * done or not. Default 100 000.
   */
  retainPerPartition?: number
  /**
   * Messages kept per partition once every group that reads it has committed them (a rewind
   * window); older done messages are released, so a long backfill does not stay in memory.
   * Default 1 000: the window is the process's heap (10 000 blocks of a chain and posts of every
   * topic held some 300 MB, and a large heap slows every young collection of the API beside it).
   */
  keepDonePerPartition?: number
  /** Pause before a failed batch is delivered again. Default 200 ms. */
  retryDelayMs?: number
}

interface Partition {
  /** Offset of messages[0]. */
  base: number
  messages: BusMessage[]
}

interface Member {
  topics: Set<string>
  /** Partition keys (`topic\0partition`) this member consumes. */
  assigned: Set<string>
  wake: () => void
}

interface Group {
  id: string
  /** Next offset to deliver per partition key; advanced only by done batches. */
  committed: Map<string, number>
  /** Partitions whose batch is being handled right now (at most one handler per partition). */
  busy: Set<string>
  members: Member[]
}


/** An in-process bus with the Kafka bus's delivery rules, for the embedded mode and tests. */
export function createMemoryBus(options: MemoryBusOptions = {}): Bus {
  const partitionCount = Math.max(1, options.partitions ?? 1)
  const retain = Math.max(1, options.retainPerPartition ?? 100_000)
  const keepDone = Math.max(0, options.keepDonePerPartition ?? 1_000)
  const retryDelayMs = options.retryDelayMs ?? 200
  const topics = new Map<string, Partition[]>()
  const groups = new Map<string, Group>()
  const subscriptions = new Set<Subscription>()
  let closed = false

  function topicPartitions(topic: string): Partition[] {
    let parts = topics.get(topic)
    if (!parts) {
      parts = Array.from({ length: partitionCount }, () => ({ base: 0, messages: [] }))
      topics.set(topic, parts)
    }
    return parts
  }

  function endOffset(p: Partition): number {
    return p.base + p.messages.length
  }

  // Trims in steps of a tenth of the retention, so a steady stream does not shift the whole
  // array on every publish.
  function trim(p: Partition): void {
    if (p.messages.length <= retain + Math.ceil(retain / 10)) return
    const drop = p.messages.length - retain
    p.messages.splice(0, drop)
    p.base += drop
  }

  /** Release the messages every group reading this partition has committed, but the newest `keepDone`. */
  function releaseDone(topic: string, index: number): void {
    const key = partKey(topic, index)
    let low = Infinity
    for (const g of groups.values()) {
      const c = g.committed.get(key)
      if (c !== undefined) low = Math.min(low, c)
    }
    const p = topicPartitions(topic)[index]
    const drop = low - keepDone - p.base
    // In steps of a tenth of the window, like trim().
    if (drop === Infinity || drop < Math.max(1, Math.ceil(keepDone / 10))) return
    p.messages.splice(0, drop)
    p.base += drop
  }

  function rebalance(group: Group): void {
    for (const m of group.members) m.assigned.clear()
    const wanted = new Set<string>()
    for (const m of group.members) for (const t of m.topics) wanted.add(t)
    for (const topic of [...wanted].sort()) {
      const takers = group.members.filter((m) => m.topics.has(topic))
      topicPartitions(topic).forEach((_, i) => takers[i % takers.length].assigned.add(partKey(topic, i)))
    }
    for (const m of group.members) m.wake()
  }

  async function subscribe(opts: SubscribeOptions): Promise<Subscription> {
    if (closed) throw new Error('memory bus: subscribe() after close()')
    const maxBatch = Math.max(1, opts.maxBatchSize ?? DEFAULT_MAX_BATCH)
    let group = groups.get(opts.groupId)
    if (!group) {
      group = { id: opts.groupId, committed: new Map(), busy: new Set(), members: [] }
      groups.set(opts.groupId, group)
    }
    const g = group
    // A group with no committed offset starts at the beginning or, like Kafka's "latest", at
    // the end as it is now.
    for (const topic of opts.topics) {
      topicPartitions(topic).forEach((p, i) => {
        const key = partKey(topic, i)
        if (!g.committed.has(key)) g.committed.set(key, opts.fromBeginning === false ? endOffset(p) : p.base)
      })
    }

    const signal = createSignal()
    const member: Member = { topics: new Set(opts.topics), assigned: new Set(), wake: signal.notify }
    g.members.push(member)
    rebalance(g)

    let running = true
    let cursor = 0

    // The next assigned, idle partition with messages not yet done, round-robin.
    function nextReady(): { topic: string; index: number; key: string } | null {
      const keys = [...member.assigned]
      for (let n = 0; n < keys.length; n++) {
        const key = keys[(cursor + n) % keys.length]
        const [topic, indexText] = key.split('\0')
        const index = Number(indexText)
        const p = topicPartitions(topic)[index]
        const from = Math.max(g.committed.get(key) ?? p.base, p.base)
        if (!g.busy.has(key) && from < endOffset(p)) {
          cursor = (cursor + n + 1) % keys.length
          return { topic, index, key }
        }
      }
      return null
    }

    async function deliver(topic: string, index: number, key: string): Promise<void> {
      const p = topicPartitions(topic)[index]
      const from = Math.max(g.committed.get(key) ?? p.base, p.base)
      const upto = Math.min(endOffset(p), from + maxBatch)
      const messages = p.messages.slice(from - p.base, upto - p.base).map(copyMessage)
      const batch: BusBatch = { topic, partition: index, messages, highWatermark: String(endOffset(p)) }
      const first = BigInt(from)
      const last = BigInt(upto - 1)
      let done = last
      const control: BatchControl = {
        doneThrough(offset: string) {
          done = clampOffset(offset, first, last)
        },
      }
      g.busy.add(key)
      try {
        await opts.onBatch(batch, control)
      } catch (err) {
        safeOnError(opts, err, batch)
        await signal.sleep(retryDelayMs, () => !running)
        return
      } finally {
        g.busy.delete(key)
        for (const m of g.members) if (m !== member) m.wake()
      }
      if (done >= first) {
        g.committed.set(key, Number(done) + 1)
        releaseDone(topic, index)
      } else {
        // Nothing done: the handler waits for more, so do not spin on the same messages.
        await signal.sleep(retryDelayMs, () => !running)
      }
    }

    async function loop(): Promise<void> {
      while (running) {
        const wait = signal.wait()
        const ready = nextReady()
        if (ready) await deliver(ready.topic, ready.index, ready.key)
        else await wait
      }
    }

    const loopDone = loop()
    const subscription: Subscription = {
      async stop() {
        if (!running) return loopDone
        running = false
        signal.notify()
        await loopDone
        g.members = g.members.filter((m) => m !== member)
        subscriptions.delete(subscription)
        rebalance(g)
      },
      async lag() {
        let total = 0
        for (const key of member.assigned) {
          const [topic, indexText] = key.split('\0')
          const p = topicPartitions(topic)[Number(indexText)]
          total += endOffset(p) - Math.max(g.committed.get(key) ?? p.base, p.base)
        }
        return total
      },
    }
    subscriptions.add(subscription)
    return subscription
  }

  return {
    kind: 'memory',
    async ensureTopics(names) {
      for (const t of names) topicPartitions(t)
    },
    async publish(topic, records) {
      if (closed) throw new Error('memory bus: publish() after close()')
      const parts = topicPartitions(topic)
      const now = Date.now()
      const touched = new Set<number>()
      for (const r of records) {
        const index = r.key === null ? roundRobin(parts) : hashKey(r.key) % parts.length
        const p = parts[index]
        p.messages.push({ ...copyRecord(r), topic, partition: index, offset: String(endOffset(p)), timestamp: now })
        touched.add(index)
      }
      for (const index of touched) trim(parts[index])
      for (const g of groups.values()) for (const m of g.members) if (m.topics.has(topic)) m.wake()
    },
    subscribe,
    async ping() {
      if (closed) throw new Error('memory bus is closed')
    },
    async close() {
      closed = true
      await Promise.all([...subscriptions].map((s) => s.stop()))
    },
  }
}

function partKey(topic: string, index: number): string {
  return `${topic}\0${index}`
}

function copyRecord(r: BusRecord): BusRecord {
  return { key: r.key, value: r.value, ...(r.headers ? { headers: { ...r.headers } } : {}) }
}

function copyMessage(m: BusMessage): BusMessage {
  return { ...m, ...(m.headers ? { headers: { ...m.headers } } : {}) }
}

let nullKeyCounter = 0
function roundRobin(parts: Partition[]): number {
  nullKeyCounter = (nullKeyCounter + 1) % parts.length
  return nullKeyCounter
}

// FNV-1a: stable across runs, so a key always lands in the same partition.
function hashKey(key: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** Parses a `doneThrough` offset and clamps it to [first - 1, last]. */
export function clampOffset(offset: string, first: bigint, last: bigint): bigint {
  let n: bigint
  try {
    n = BigInt(offset)
  } catch {
    throw new Error(`doneThrough(): "${offset}" is not an offset`)
  }
  if (n < first - 1n) return first - 1n
  return n > last ? last : n
}

function safeOnError(opts: SubscribeOptions, err: unknown, batch: BusBatch): void {
  try {
    opts.onError?.(err, batch)
  } catch {
    // A failing error hook must not stop redelivery.
  }
}

interface Signal {
  /** A promise for the next notify() (take it before checking for work, then await it). */
  wait(): Promise<void>
  notify(): void
  /** Sleeps ms, or less when notify() is called and `cut()` says to stop waiting. */
  sleep(ms: number, cut: () => boolean): Promise<void>
}

function createSignal(): Signal {
  let resolve!: () => void
  let promise = new Promise<void>((r) => (resolve = r))
  const signal: Signal = {
    wait: () => promise,
    notify() {
      resolve()
      promise = new Promise<void>((r) => (resolve = r))
    },
    async sleep(ms, cut) {
      const until = Date.now() + ms
      while (!cut() && Date.now() < until) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([signal.wait(), new Promise<void>((r) => (timer = setTimeout(r, until - Date.now())))])
        clearTimeout(timer)
      }
    },
  }
  return signal
}
