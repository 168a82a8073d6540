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
  /** Seconds left at that rate; null while the rate is unknown or nothing moves. */
  etaSec: number | null
  /** Seconds since `done` last grew, once that is `stallMs` or more (a stall); otherwise null. */
  stalledSec: number | null
  finished: boolean
}

export interface BackfillMeter {
  /** Record that `done` blocks of the backfill are through at `nowMs`, and report. */
  sample(done: number, nowMs: number): BackfillProgress
}

/**
 * `stallMs`: without growth for this long the backfill counts as stalled (a broker refusing the
 * records, a pipeline that stopped): the rate is 0 and no time left is promised, whatever the
 * window's average says.
 */
export function createBackfillMeter(total: number, startedMs: number, windowMs = 15_000, stallMs = 5_000): BackfillMeter {
  const samples: Array<{ t: number; done: number }> = [{ t: startedMs, done: 0 }]
  let movedAt = startedMs
  let best = 0
  return {
    sample(done, nowMs) {
      const clamped = Math.max(0, Math.min(total, done))
      if (clamped > best) {
        best = clamped
        movedAt = nowMs
      }
      samples.push({ t: nowMs, done: clamped })
      // Keep the newest sample older than the window as the rate's base.
      while (samples.length > 2 && samples[1]!.t <= nowMs - windowMs) samples.shift()
      const base = samples[0]!
      const seconds = (nowMs - base.t) / 1000
      const blocksPerSec = seconds > 0 ? (clamped - base.done) / seconds : 0
      const left = total - clamped
      const stalled = left > 0 && nowMs - movedAt >= stallMs
      return {
        done: clamped,
        total,
        blocksPerSec: stalled ? 0 : blocksPerSec,
        etaSec: left === 0 ? 0 : !stalled && blocksPerSec > 0 ? left / blocksPerSec : null,
        stalledSec: stalled ? (nowMs - movedAt) / 1000 : null,
        finished: left === 0,
      }
    },
  }
}

/** `backfill 12000/43200 blocks (28%), 1250 blocks/s, about 25 s left`; stalled: `..., no progress for 12 s, time left unknown` */
export function formatProgress(p: BackfillProgress): string {
  const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100
  if (p.stalledSec !== null && p.stalledSec !== undefined) {
    return `backfill ${p.done}/${p.total} blocks (${pct}%), no progress for ${formatSeconds(p.stalledSec)}, time left unknown`
  }
  const eta = p.etaSec === null ? 'time left unknown' : `about ${formatSeconds(p.etaSec)} left`
  return `backfill ${p.done}/${p.total} blocks (${pct}%), ${Math.round(p.blocksPerSec)} blocks/s, ${eta}`
}

function formatSeconds(s: number): string {
  const r = Math.ceil(s)
  return r < 120 ? `${r} s` : `${Math.floor(r / 60)} min ${r % 60} s`
}
