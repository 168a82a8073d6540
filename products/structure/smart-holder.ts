/**
 * A smart holder (issue 11): a wallet whose measured trading record is good. The FIFO part:
 * over all its tokens, a positive realized result (WETH wei, FIFO-matched, products/wallet/fifo-sql.ts)
 * with a win rate of at least SMART_MIN_WIN_RATE over at least SMART_MIN_SELLS matched sells.
 * (The other source, the linked wallet of a caller graded A or B, has no data yet: the social
 * data links no handle to a wallet.)
 */
export const SMART_MIN_SELLS = 5
export const SMART_MIN_WIN_RATE = 0.5

export interface FifoRecord {
  realizedWei: bigint
  sells: number
  winningSells: number
}

export function isSmartFifoRecord(r: FifoRecord): boolean {
  return r.realizedWei > 0n && r.sells >= SMART_MIN_SELLS && r.winningSells >= SMART_MIN_WIN_RATE * r.sells
}
