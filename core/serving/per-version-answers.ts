import { countCacheLookup } from '../metrics.ts'
import { LruMap } from './lru-map.ts'
import { wokenAt } from './long-poll.ts'

/**
 * Answers kept for one version of the served state (a feed page at a cursor, for the batch it was
 * read at): pollers following next_since ask the same cursors over and over between two batches.
 * Only the current version's are held: a lookup at another version (a request reads the version
 * it answers at, then looks up at once) drops them all, and an answer computed at a version no
 * longer held is not kept. Memory is bounded by `maxEntries` answers of one version, and nothing
 * is answered at a version it was not read at. Unlike the serving cache (serving-cache.ts), which
 * keeps every answer it loads and shares it through the store, the caller decides what is kept
 * (`keepsFeedPage`).
 */
export interface PerVersionAnswers<T> {
  get(version: string | number, key: string): T | undefined
  set(version: string | number, key: string, answer: T): void
}

/** Feed pages a poll-following feed keeps per version (each page at most its limit of items). */
export const KEPT_FEED_PAGES = 256

/**
 * Whether a feed page may be kept: never a long poll's woken answer (timed once, when woken), nor
 * an empty page a later poll with `wait` must hold; an empty page asked without wait is kept.
 */
export function keepsFeedPage(page: object, items: number, wait: number | undefined): boolean {
  return (items > 0 || !wait) && wokenAt(page) === undefined
}

export function createPerVersionAnswers<T>(maxEntries: number, name: string): PerVersionAnswers<T> {
  let held = { version: '' as string | number, answers: new LruMap<T>(maxEntries) }
  return {
    get(version, key) {
      if (version !== held.version) held = { version, answers: new LruMap<T>(maxEntries) }
      const answer = held.answers.get(key)
      countCacheLookup(name, answer !== undefined)
      return answer
    },
    set(version, key, answer) {
      if (version === held.version) held.answers.set(key, answer)
    },
  }
}
