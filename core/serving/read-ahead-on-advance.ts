import { oncePerVersion } from './once-per-version.ts'
import type { AdvanceSource, Watermarks } from './watermarks.ts'

/** A value read per data version is read ahead after an advance while it was asked within this long. */
export const READ_AHEAD_RECENT_MS = 120_000

/**
 * `readAhead` run at each advance of the watermarks while `asked()` was called within `recentMs`:
 * what the first request after a batch would read is read when the batch lands, so that request
 * joins the read or finds it done instead of starting it and waiting on the engine. Nothing is
 * read for what nobody asked for lately.
 */
export function readAheadWhileAsked(
  watermarks: Pick<Watermarks, 'onAdvance'>,
  readAhead: (source: AdvanceSource) => void,
  recentMs = READ_AHEAD_RECENT_MS,
): { asked(): void; lately(): boolean } {
  let askedAt = Number.NEGATIVE_INFINITY
  const lately = () => performance.now() - askedAt < recentMs
  watermarks.onAdvance((source) => {
    if (lately()) readAhead(source)
  })
  return {
    asked() {
      askedAt = performance.now()
    },
    /** Whether `asked()` was called within `recentMs`. */
    lately,
  }
}

/**
 * A value read once per data version (./once-per-version.ts) and read again the moment the
 * watermarks advance, while a caller asked for it lately (readAheadWhileAsked); a failed read
 * ahead is not kept, so the next ask reads again.
 */
export function readAheadPerVersion<V>(
  watermarks: Pick<Watermarks, 'onAdvance'>,
  version: () => string,
  read: (version: string) => Promise<V>,
  recentMs = READ_AHEAD_RECENT_MS,
): () => Promise<V> {
  const at = oncePerVersion(read)
  const ahead = readAheadWhileAsked(watermarks, () => at(version()).catch(() => {}), recentMs)
  return () => {
    ahead.asked()
    return at(version())
  }
}
