/**
 * The getLogs block range, adapted to the node: halved when the node refuses a range as too
 * large, doubled after a quiet range, within [1, max].
 */
export class AdaptiveRange {
  size: number
  constructor(
    initial: number,
    readonly max: number,
    /** Logs in a range below which the next range may grow. */
    readonly quietLogs = 2_000,
  ) {
    this.size = Math.max(1, Math.min(initial, max))
  }

  shrink(): void {
    this.size = Math.max(1, Math.floor(this.size / 2))
  }

  /** After a successful range with `logs` logs. */
  fitted(logs: number): void {
    if (logs < this.quietLogs) this.size = Math.min(this.max, this.size * 2)
  }
}
