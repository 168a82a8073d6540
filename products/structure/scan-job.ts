/**
 * Scan jobs (POST /structure/{token}, POST /forensics/{token} and the daily scan of watched
 * tokens): the one state machine, defined here once. A job is `queued` when requested, `running`
 * once a scans worker took it, then `done` (its result is stored) or `failed` (with the reason).
 * `done` and `failed` are final; a new request after them starts a new job. While a job is
 * `queued` or `running` (active), a second request for the same scan answers that job.
 *
 *   queued ──► running ──► done
 *     │           │ ▲
 *     │           └─┘ (taken again after a worker stopped mid-scan: the bus redelivers it)
 *     └───────────┴──────► failed (reason)
 */
export const SCAN_KINDS = ['structure', 'forensics'] as const
export type ScanKind = (typeof SCAN_KINDS)[number]

export const SCAN_STATES = ['queued', 'running', 'done', 'failed'] as const
export type ScanState = (typeof SCAN_STATES)[number]

/** Who asked for a scan: a caller's POST or the daily scan of a watched token. */
export const SCAN_TRIGGERS = ['request', 'daily'] as const
export type ScanTrigger = (typeof SCAN_TRIGGERS)[number]

const NEXT: Record<ScanState, readonly ScanState[]> = {
  queued: ['running', 'failed'],
  running: ['running', 'done', 'failed'],
  done: [],
  failed: [],
}

/** A job is active while queued or running: a repeated request answers it instead of queuing another. */
export function isActive(state: ScanState): boolean {
  return state === 'queued' || state === 'running'
}

export function canMove(from: ScanState, to: ScanState): boolean {
  return NEXT[from].includes(to)
}

export class ScanTransitionError extends Error {
  constructor(
    readonly from: ScanState,
    readonly to: ScanState,
  ) {
    super(`a scan job cannot go from ${from} to ${to}`)
  }
}

export interface ScanJob {
  id: string
  kind: ScanKind
  token: string
  trigger: ScanTrigger
  state: ScanState
  /** Why it failed; null unless failed. */
  reason: string | null
  requestedAt: string
  updatedAt: string
  /** The block the stored result is measured through (done); null before. */
  measuredThroughBlock: number | null
}

/** The job after one transition; throws on one the machine does not allow. `failed` needs its reason. */
export function moveJob(job: ScanJob, to: ScanState, at: Date, extra: { reason?: string; measuredThroughBlock?: number } = {}): ScanJob {
  if (!canMove(job.state, to)) throw new ScanTransitionError(job.state, to)
  if (to === 'failed' && !extra.reason) throw new Error('a failed scan job carries its reason')
  return {
    ...job,
    state: to,
    reason: to === 'failed' ? extra.reason! : null,
    updatedAt: at.toISOString(),
    measuredThroughBlock: to === 'done' ? (extra.measuredThroughBlock ?? null) : job.measuredThroughBlock,
  }
}

/** Runs one scan and stores its result; answers the block the result is measured through. */
export type Scanner = (job: ScanJob) => Promise<{ measuredThroughBlock: number }>

/**
 * A scan that cannot be done for a reason of the data (an unknown token, a token without
 * transfers): the job ends `failed` with this message. Any other error is a dependency's
 * failure and is retried by the consumer (the job stays `running`).
 */
export class ScanRefused extends Error {}
