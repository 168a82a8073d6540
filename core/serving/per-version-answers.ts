import { countCacheLookup } from '../metrics.ts'
import { LruMap } from './lru-map.ts'

/**
 * Answers kept for one version of the served state (a feed page at a cursor, for the block it was
 * read at): pollers following next_since ask the same cursors over and over between two batches.
 * Only the current version's are held: the first lookup at a newer version drops them all, so
 * memory is bounded by `maxEntries` answers of one version and nothing stale is ever served.
 */
export interface PerVersionAnswers<T> {
  get(version: number, key: string): T | undefined
  set(version: number, key: string, answer: T): void
}

export function createPerVersionAnswers<T>(maxEntries: number, name: string): PerVersionAnswers<T> {
  let held = { version: -1, answers: new LruMap<T>(maxEntries) }
  const at = (version: number) => {
    if (version > held.version) held = { version, answers: new LruMap<T>(maxEntries) }
    return held.version === version ? held.answers : undefined
  }
  return {
    get(version, key) {
      const answer = at(version)?.get(key)
      countCacheLookup(name, answer !== undefined)
      return answer
    },
    set(version, key, answer) {
      at(version)?.set(key, answer)
    },
  }
}
