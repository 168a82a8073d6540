import { DependencyUnavailableError, isDependencyUnavailable } from '../core/dependency.ts'

/**
 * Two processes of one service talking over Node's IPC channel (`fork`): requests answered by the
 * other side, and news it is told without an answer. `svc start`'s pipeline process and its API
 * process use it (bin/api-process.ts). Messages use the channel's `advanced` serialization (the
 * structured clone: bigints and nested records pass as they are).
 */
export interface ProcessLink {
  /** Ask the other side; rejects with its error, when the channel closes, or after `timeoutMs`. */
  request<T>(op: string, args?: unknown, timeoutMs?: number): Promise<T>
  /** Tell the other side something; nothing answers. Dropped once the channel is closed. */
  tell(kind: string, value?: unknown): void
  /** Answer the other side's requests of `op`. */
  onRequest(op: string, answer: (args: unknown) => unknown): void
  /**
   * Hear news of `kind`. News that arrived before anyone listened is given now, in order: the
   * other side may tell before this side has built what hears it.
   */
  onTell(kind: string, hear: (value: unknown) => void): void
}

/** Longest a request waits for its answer unless told otherwise. */
const REQUEST_TIMEOUT_MS = 10_000

type Message =
  | { svc: 'req'; id: number; op: string; args: unknown }
  | { svc: 'res'; id: number; ok: true; value: unknown }
  | { svc: 'res'; id: number; ok: false; error: WireError }
  | { svc: 'tell'; kind: string; value: unknown }

/** An error as it crosses: a dependency that did not answer stays one on the other side (503). */
type WireError = { message: string; dependency?: DependencyUnavailableError['dependency']; reason?: string }

const toWire = (err: unknown): WireError =>
  isDependencyUnavailable(err) ? { message: err.message, dependency: err.dependency, reason: err.reason } : { message: err instanceof Error ? err.message : String(err) }

const fromWire = (e: WireError): Error => (e.dependency ? new DependencyUnavailableError(e.dependency, e.reason ?? e.message) : new Error(e.message))

/** The channel of a forked child (in the parent) or of this process (in the child). */
interface Channel {
  send(message: unknown): boolean
  on(event: 'message' | 'disconnect', listener: (message?: unknown) => void): unknown
  readonly connected: boolean
}

export function linkOver(channel: Channel): ProcessLink {
  let nextId = 1
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>()
  const answers = new Map<string, (args: unknown) => unknown>()
  const hearers = new Map<string, (value: unknown) => void>()
  const unheard: Array<{ kind: string; value: unknown }> = []

  const send = (m: Message) => {
    if (!channel.connected) return false
    try {
      return channel.send(m)
    } catch {
      return false
    }
  }

  const onMessage = (raw: unknown) => {
    const m = raw as Message
    if (!m || typeof m !== 'object' || !('svc' in m)) return
    if (m.svc === 'res') {
      const w = waiting.get(m.id)
      if (!w) return
      waiting.delete(m.id)
      clearTimeout(w.timer)
      if (m.ok) w.resolve(m.value)
      else w.reject(fromWire(m.error))
    } else if (m.svc === 'req') {
      const answer = answers.get(m.op)
      Promise.resolve()
        .then(() => {
          if (!answer) throw new Error(`nothing answers ${m.op} here`)
          return answer(m.args)
        })
        .then(
          (value) => {
            if (!channel.connected) return
            try {
              channel.send({ svc: 'res', id: m.id, ok: true, value } satisfies Message)
            } catch (err) {
              // An answer the channel cannot carry (a function, a timer): the asker hears why, now.
              send({ svc: 'res', id: m.id, ok: false, error: toWire(err) })
            }
          },
          (err: unknown) => send({ svc: 'res', id: m.id, ok: false, error: toWire(err) }),
        )
    } else if (m.svc === 'tell') {
      const hear = hearers.get(m.kind)
      if (hear) hear(m.value)
      else unheard.push({ kind: m.kind, value: m.value })
    }
  }
  const onDisconnect = () => {
    for (const [id, w] of waiting) {
      clearTimeout(w.timer)
      w.reject(new Error('the other process of the service is gone'))
      waiting.delete(id)
    }
  }
  channel.on('message', onMessage)
  channel.on('disconnect', onDisconnect)

  return {
    request<T>(op: string, args?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const id = nextId++
        const timer = setTimeout(() => {
          waiting.delete(id)
          reject(new Error(`${op}: the other process of the service did not answer within ${timeoutMs} ms`))
        }, timeoutMs)
        timer.unref()
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer })
        if (!send({ svc: 'req', id, op, args })) {
          waiting.delete(id)
          clearTimeout(timer)
          reject(new Error(`${op}: the other process of the service is gone`))
        }
      })
    },
    tell(kind, value) {
      send({ svc: 'tell', kind, value })
    },
    onRequest(op, answer) {
      answers.set(op, answer)
    },
    onTell(kind, hear) {
      hearers.set(kind, hear)
      for (let i = 0; i < unheard.length; ) {
        if (unheard[i]!.kind === kind) hear(unheard.splice(i, 1)[0]!.value)
        else i++
      }
    },
  }
}
