/**
 * Progress of a simulator backfill, for the line `svc start` logs while it ingests history:
 * blocks done of the total, the recent rate and the time left at that rate. The rate is taken
 * over a sliding window, so a slow start (engine warm-up) does not skew the estimate for long.
 */
export interface BackfillProgress {
  done: number
  total: number
  /** Blocks per second over the window; 0 until two samples are apart in time. */
  blocksPerSec: number
  /** Seconds left at that rate; null while the rate is unknown. */
  etaSec: number | null
  finished: boolean
}

export interface BackfillMeter {
  /** Record that `done` blocks of the backfill are through at `nowMs`, and report. */
  sample(done: number, nowMs: number): BackfillProgress
}

export function createBackfillMeter(total: number, startedMs: number, windowMs = 15_000): BackfillMeter {
  const samples: Array<{ t: number; done: number }> = [{ t: startedMs, done: 0 }]
  return {
    sample(done, nowMs) {
      const clamped = Math.max(0, Math.min(total, done))
      samples.push({ t: nowMs, done: clamped })
      // Keep the newest sample older than the window as the rate's base.
      while (samples.length > 2 && samples[1]!.t <= nowMs - windowMs) samples.shift()
      const base = samples[0]!
      const seconds = (nowMs - base.t) / 1000
      const blocksPerSec = seconds > 0 ? (clamped - base.done) / seconds : 0
      const left = total - clamped
      return {
        done: clamped,
        total,
        blocksPerSec,
        etaSec: left === 0 ? 0 : blocksPerSec > 0 ? left / blocksPerSec : null,
        finished: left === 0,
      }
    },
  }
}

/** `backfill 12000/43200 blocks (28%), 1250 blocks/s, about 25 s left` */
export function formatProgress(p: BackfillProgress): string {
  const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100
  const eta = p.etaSec === null ? 'time left unknown' : `about ${formatSeconds(p.etaSec)} left`
  return `backfill ${p.done}/${p.total} blocks (${pct}%), ${Math.round(p.blocksPerSec)} blocks/s, ${eta}`
}

function formatSeconds(s: number): string {
  const r = Math.ceil(s)
  return r < 120 ? `${r} s` : `${Math.floor(r / 60)} min ${r % 60} s`
}
