import type { Config } from '../config.ts'
import type { AdvanceSource, Watermarks } from './watermarks.ts'

/**
 * Answers of long polls that a data advance woke, with when this process learnt of that advance
 * (performance.now() ms, Watermarks.advancedAt): the route measures advance-to-written from it
 * (svc_long_poll_answer_seconds). Weak: an answer is forgotten with it.
 */
const wokenAnswers = new WeakMap<object, number>()

/** Mark `answer` as woken by the advance learnt at `advancedAt` (nothing when undefined). */
export function markWoken<T extends object>(answer: T, advancedAt: number | undefined): T {
  if (advancedAt !== undefined) wokenAnswers.set(answer, advancedAt)
  return answer
}

/** When the advance that woke this answer was learnt, for a woken long poll's answer. */
export function wokenAt(answer: unknown): number | undefined {
  return answer !== null && typeof answer === 'object' ? wokenAnswers.get(answer) : undefined
}

/** Seconds a long poll asking `wait` is held: at most LONG_POLL_HOLD_SECONDS. */
export function heldSeconds(wait: number | undefined, config: Pick<Config, 'LONG_POLL_HOLD_SECONDS'>): number {
  return Math.min(wait ?? 0, config.LONG_POLL_HOLD_SECONDS)
}

/**
 * A feed's long poll (its `wait`, DESIGN §6): read the page after the caller's cursor; while it
 * is empty and the wait has time left, sleep until the data the page reads advances (a served
 * batch, social rows: pushed in one process, polled across processes), then read the page again.
 * Nothing polls on a timer, so a waiting poller costs a listener and a timer until the data moves.
 *
 * The listener is armed before each read: an advance that lands while the page is being read
 * wakes the next wait at once instead of being missed until the one after. A page found after a
 * wake is marked with that advance (`wokenAt`); the endpoint carries the mark to its answer.
 */
export async function holdWhileEmpty<T>(opts: {
  /** Seconds the caller allows (absent or 0: answer the first read). */
  waitSeconds: number | undefined
  read: () => Promise<T>
  isEmpty: (page: T) => boolean
  watermarks: Watermarks
  /** Which advances can put an item on the page. */
  wakesOn: (source: AdvanceSource) => boolean
}): Promise<T> {
  const deadline = Date.now() + (opts.waitSeconds ?? 0) * 1000
  let wokenBy: AdvanceSource | undefined
  for (;;) {
    let wake = () => {}
    let advanced: AdvanceSource | undefined
    const woken = new Promise<void>((resolve) => (wake = resolve))
    const stopListening = opts.watermarks.onAdvance((source) => {
      if (!opts.wakesOn(source)) return
      advanced = source
      wake()
    })
    let timer: NodeJS.Timeout | undefined
    try {
      const page = await opts.read()
      const left = deadline - Date.now()
      if (!opts.isEmpty(page)) return wokenBy === undefined || page === null || typeof page !== 'object' ? page : markWoken(page, opts.watermarks.advancedAt(wokenBy))
      if (left <= 0) return page
      if (advanced === undefined) {
        const expired = new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))
        await Promise.race([woken, expired])
        // Out of time with nothing new: the empty page is the answer.
        if (advanced === undefined) return page
      }
      // The page was empty and the data moved: the next read is a woken poll's.
      wokenBy = advanced
    } finally {
      clearTimeout(timer)
      stopListening()
    }
  }
}
