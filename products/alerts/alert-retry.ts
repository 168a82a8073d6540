/** Attempts per webhook delivery before it is marked failed (documented retry policy). */
export const MAX_ATTEMPTS = 6
/** Wait before the second attempt; it doubles after each failure (1, 2, 4, 8, 16 s). */
export const BACKOFF_MS = 1_000
