/**
 * When a holder's measured trading record is good (the `smart` label, /structure/{token}/smart-holders):
 * its FIFO realized result over every token it traded (core/domain/fifo-sql.ts, kept per
 * wallet-token in fifo_state) is positive, with at least SMART_MIN_SELLS matched sells of which
 * at least SMART_MIN_WIN_RATE were winning (realized > 0). The other source, a caller graded A or
 * B whose wallet is linked, waits for wallet-linked handles (core/structure/wallet-records.ts).
 */
export const SMART_MIN_SELLS = 5
export const SMART_MIN_WIN_RATE = 0.5

export interface FifoRecord {
  realized: bigint
  sells: number
  winningSells: number
}

export function isSmartFifo(r: FifoRecord): boolean {
  return r.realized > 0n && r.sells >= SMART_MIN_SELLS && r.winningSells >= SMART_MIN_WIN_RATE * r.sells
}
