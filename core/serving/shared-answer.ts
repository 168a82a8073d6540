import { renderOnce } from './rendered-json.ts'

/**
 * Identical requests in flight share one answer: it is computed (and, for a long poll, waited
 * for) once, and its object parts are rendered to JSON once (rendered-json.ts). For answers that
 * depend on nothing about the caller, keyed by everything they do depend on: a feed page at a
 * cursor, where a thousand pollers at the head ask the same page the moment a batch wakes them.
 * Held only while in flight, so the memory is bounded by the requests being served.
 */
export type SharedAnswers<T extends object> = (key: string, compute: () => Promise<T>) => Promise<T>

export function createSharedAnswers<T extends object>(): SharedAnswers<T> {
  const inFlight = new Map<string, Promise<T>>()
  return (key, compute) => {
    let answer = inFlight.get(key)
    if (!answer) {
      answer = compute().then(
        (result) => {
          inFlight.delete(key)
          // The answer is served unchanged to every sharer: its parts' text is made once.
          for (const part of Object.values(result)) if (part !== null && typeof part === 'object') renderOnce(part)
          return result
        },
        (err: unknown) => {
          inFlight.delete(key)
          throw err
        },
      )
      inFlight.set(key, answer)
    }
    return answer
  }
}
