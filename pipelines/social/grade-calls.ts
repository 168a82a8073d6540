import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { CALL_WINDOW_SECONDS, forwardReturn, isEarlyCall, isMomentumCall } from '../../products/social/caller-grade.ts'
import type { Logger } from '../../core/logger.ts'
import { chainHead, databaseNow } from '../../core/records/data-clock.ts'
import { callFacts, callsClosingIn, gradedCallsOfTokens, passFacts, runsOf, windowPrices, type CallFacts, type CallKey, type PassFacts } from './grade-reads.ts'
import { copiedAt, reorgsSince, resyncSwapsByToken, rollbackRunning, timeBefore, tokensRunFrom } from './grade-reorgs.ts'
import { callId, currentGrades, sameGrade, writeGradeChanges, type CallGrade, type GradeChange } from './grade-store.ts'
import { loadCheckpoint, NO_CHECKPOINT, saveCheckpoint, type GraderCheckpoint } from './grader-state.ts'
import { keptCallerProgress, refreshCallerState, storeKeptProgress, type CallerStateChanges } from '../../products/social/caller-refresh.ts'
import { chunks } from '../../core/chunks.ts'

/**
 * The call grader: grades each call once its hour has passed and stores it (call_grades,
 * migration 012), from which caller summaries are aggregated as the grades are written.
 *
 * A pass, given the chain's newest block time T, visits only what changed since the last pass:
 *  - calls whose window closed since the last pass (calls_by_time, by time);
 *  - calls stored since the last pass (calls_noted): a call that arrived after its hour had
 *    closed, or whose first mention moved earlier;
 *  - the graded calls of tokens noted real since the last pass (token_real_noted): their calls
 *    become early or momentum;
 *  - after a reorg: the calls whose window reaches the fork's time and the calls of tokens whose
 *    run was at or above the fork (see grade-reorgs.ts).
 * Each visited call is graded from scratch and compared with its stored grade; only a difference
 * is written (a cancel row and the new grade), so a pass run twice writes nothing the second
 * time, and the checkpoint (call_grader_state) is saved after the writes.
 *
 * After each pass the callers whose inputs changed (calls, grades, follows) get their records
 * recomputed (caller_state, see caller-state.ts), so a pass's grades are served by key.
 *
 * One grader per database: two running at once would not corrupt grades (each writes only
 * differences from what it read) but could write one change twice.
 */
export interface CallGraderDeps {
  ch: ClickHouseClient
  logger: Logger
  chainId?: number
  /**
   * Pause between passes (default 2 s). A process whose pipelines tell the grader what changed
   * (`changed`) sets it long: the passes then run when they can grade something.
   */
  intervalMs?: number
  /**
   * The least time between the end of a pass and one run for a change told (default 2 s): while
   * the pipelines catch up, changes come faster than passes, and a pass a batch would fill the engine.
   */
  toldGapMs?: number
  /** How far passes overlap in the `*_noted` marks (default NOTED_OVERLAP_MS). */
  notedOverlapMs?: number
  /** Called after a pass that wrote grade or caller rows (the API's social version, in one process). */
  onGraded?(rows: number): void
}

export interface GraderPass {
  /** The chain time graded through. */
  chainTime: number
  /** Calls visited. */
  visited: number
  /** Grade rows written (cancels and new grades). */
  written: number
  /** Set when the pass waited for a rollback to finish and graded nothing. */
  waitingForRollback?: boolean
  /** What the caller-state refresh after the pass changed. */
  callers?: CallerStateChanges
  /** The database clock (unix ms) as the pass began reading. */
  readAt?: number
}

/**
 * What changed, as the pipelines in the grader's process tell it: calls or follows stored (calls
 * noted, callers' inputs moved), or a batch of the chain served (its chain time; whether a token
 * turned real in it; whether it was a rollback's).
 */
export type GraderChange = { kind: 'calls' } | { kind: 'chain'; chainTime: number; turnedReal?: boolean; rolledBack?: boolean }

export interface CallGrader {
  /** Run one pass now (after the running one, if any); null before the chain has a block. */
  runOnce(): Promise<GraderPass | null>
  /**
   * A change a pass may have to grade: a pass runs (after the running one; one at most waits)
   * when calls or follows were stored, a token turned real, a rollback was served, or the chain
   * reached the time the next stored call's window closes. Any other batch asks nothing.
   * Settles once the pass it queued (or joined) has run.
   */
  changed(change: GraderChange): Promise<void>
  /** Start passes every intervalMs (and on changes told). */
  start(): void
  /** Stop the loop; the running pass finishes first. */
  stop(): Promise<void>
}

/** Calls stored while a pass reads may commit with an earlier stamp: passes overlap by this. */
const NOTED_OVERLAP_MS = 10_000
/** Calls resolved per read of `calls`, and priced per read of swaps_by_token. */
const KEYS_PER_READ = 5_000
/** The longest a pass that changed nothing waits to store the checkpoint it advanced. */
const CHECKPOINT_EVERY_MS = 30_000
const CALLS_PER_PRICING = 500

/** A call's grade at chain time `chainTime`, or null when it is not graded. */
function gradeOne(f: CallFacts, chainTime: number, px: Awaited<ReturnType<typeof windowPrices>>, runs: Map<string, number>): CallGrade | null {
  const p = px.get(callId(f.author, f.token))
  const r = forwardReturn(f.calledAt, chainTime, p?.entry ?? null, p?.exit ?? null)
  if (r === null || !p) return null
  const runAt = runs.get(f.token) ?? null
  return {
    ...f, entryPrice: p.entry.price, entryAt: p.entry.at, exitPrice: p.exit.price, exitAt: p.exit.at, return1h: r,
    runAt: runAt ?? 0, early: isEarlyCall(f.calledAt, runAt), momentum: isMomentumCall(f.calledAt, runAt),
  }
}

export function createCallGrader(deps: CallGraderDeps): CallGrader {
  const { ch, logger } = deps
  const chainId = deps.chainId ?? 4663
  const intervalMs = deps.intervalMs ?? 2_000
  const overlapMs = deps.notedOverlapMs ?? NOTED_OVERLAP_MS
  let lastVersion = 0
  // The checkpoint as the last pass left it (this grader is its only writer): read once, then
  // kept, and stored when a pass wrote grades or handled a reorg, or at most every
  // CHECKPOINT_EVERY_MS otherwise. A restart re-visits what came after the stored one, and a
  // regrade writes only what differs, so a later store costs repeated reads, never a grade.
  let checkpoint: { value: GraderCheckpoint | null; storedAt: number; version: number; stored: boolean } | undefined
  // caller_state's progress, kept the same way by its one runner, this grader.
  const callerProgress = keptCallerProgress()
  let running: Promise<GraderPass | null> = Promise.resolve(null)
  let timer: NodeJS.Timeout | undefined
  let stopped = true
  // The chain time the next open call's window closes, as the last pass read it (-Infinity:
  // unknown, so the next served batch runs a pass that reads it).
  let nextDue = Number.NEGATIVE_INFINITY
  // A pass queued behind the running one for a change told: further changes join it.
  let queued: Promise<void> | undefined
  const toldGapMs = deps.toldGapMs ?? 2_000
  let lastPassEnd = 0

  /** Versions increase across passes and restarts (microseconds of the wall clock, or one more). */
  const nextVersion = () => (lastVersion = Math.max(Date.now() * 1000, lastVersion + 1))

  /** Grade the calls of `keys` at `chainTime` and write what differs from their stored grades. */
  async function regrade(keys: CallKey[], chainTime: number, version: number): Promise<number> {
    let written = 0
    for (const part of chunks(keys, KEYS_PER_READ)) {
      const [facts, stored] = await Promise.all([callFacts(ch, part), currentGrades(ch, part)])
      const gradable = facts.filter((f) => f.calledAt + CALL_WINDOW_SECONDS <= chainTime).sort((a, b) => a.calledAt - b.calledAt)
      const targets = new Map<string, CallGrade>()
      for (const batch of chunks(gradable, CALLS_PER_PRICING)) {
        const tokens = [...new Set(batch.map((f) => f.token))]
        const [px, runs] = await Promise.all([windowPrices(ch, chainId, batch), runsOf(ch, chainId, tokens)])
        for (const f of batch) {
          const g = gradeOne(f, chainTime, px, runs)
          if (g) targets.set(callId(f.author, f.token), g)
        }
      }
      const changes: GradeChange[] = []
      for (const [author, token] of part) {
        const id = callId(author, token)
        const target = targets.get(id)
        const current = stored.get(id)
        if (!target && !current) continue
        if (target && current && sameGrade(target, current)) continue
        changes.push({ cancel: current, write: target })
      }
      written += await writeGradeChanges(ch, changes, chainTime, version)
    }
    return written
  }

  /** The first pass (no checkpoint): the head, the clock, the reorgs since the copy of swaps, every closed window. */
  async function firstPassFacts(): Promise<PassFacts & { reorgsThrough: number }> {
    const head = await chainHead(ch, chainId)
    const reorgsThrough = await copiedAt(ch)
    const unknown = Number.NEGATIVE_INFINITY
    if (!head) return { head, now: 0, reorgs: [], closing: [], noted: [], realTokens: [], nextDue: unknown, reorgsThrough }
    const now = await databaseNow(ch)
    return { head, now, reorgs: await reorgsSince(ch, chainId, reorgsThrough), closing: await callsClosingIn(ch, 0, head.time), noted: [], realTokens: [], nextDue: unknown, reorgsThrough }
  }

  async function pass(): Promise<GraderPass | null> {
    checkpoint ??= { value: await loadCheckpoint(ch, chainId), storedAt: Date.now(), version: 0, stored: true }
    const saved = checkpoint.value
    const cp = saved ?? NO_CHECKPOINT
    // One statement for a checkpointed pass (see passFacts); its clock is taken before anything
    // else is read, so what is stored after it is seen by the next pass.
    const facts = saved
      ? { ...(await passFacts(ch, chainId, { gradedThrough: cp.gradedThrough, callsNotedMs: cp.callsNoted - overlapMs, realNotedMs: cp.realNoted - overlapMs, reorgsMs: cp.reorgsThrough })), reorgsThrough: cp.reorgsThrough }
      : await firstPassFacts()
    const { head, now, reorgs } = facts
    // Known once the pass completes; a pass that stops early leaves it unknown.
    nextDue = Number.NEGATIVE_INFINITY
    if (!head) return null
    const version = nextVersion()
    const keys = new Map<string, CallKey>()
    const visit = (ks: CallKey[]) => ks.forEach((k) => keys.set(callId(k[0], k[1]), k))
    const revisitTokens = new Set<string>(facts.realTokens)
    let from = cp.gradedThrough
    // Without a checkpoint nothing is graded yet: only the copy of swaps may need mending, for
    // reorgs since it was made.
    let reorgsThrough = facts.reorgsThrough
    for (const [i, r] of reorgs.entries()) {
      // A later reorg means this rollback ended (the chain may even have returned to the old block).
      const last = i === reorgs.length - 1
      if (last && (await rollbackRunning(ch, chainId, r))) return { chainTime: head.time, visited: 0, written: 0, waitingForRollback: true }
      await resyncSwapsByToken(ch, chainId, r.fromBlock)
      from = Math.min(from, Math.max(0, (await timeBefore(ch, chainId, r.fromBlock)) - 1))
      for (const t of await tokensRunFrom(ch, chainId, r.fromBlock)) revisitTokens.add(t)
      reorgsThrough = r.detectedAt
    }
    // Windows closed up to the chain time; after a reorg the chain may be behind the last pass,
    // and the windows between are visited to be un-graded (from the fork's time, when a reorg
    // moved it before the checkpoint).
    visit(facts.closing)
    if (from < cp.gradedThrough) visit(await callsClosingIn(ch, from, Math.max(head.time, cp.gradedThrough)))
    visit(facts.noted)
    visit(await gradedCallsOfTokens(ch, [...revisitTokens]))
    const written = await regrade([...keys.values()], head.time, version)
    const next = { gradedThrough: head.time, callsNoted: now, realNoted: now, reorgsThrough }
    if (!saved || written > 0 || reorgs.length > 0 || Date.now() - checkpoint.storedAt >= CHECKPOINT_EVERY_MS) {
      await saveCheckpoint(ch, chainId, next, version)
      checkpoint.storedAt = Date.now()
      checkpoint.stored = true
    } else checkpoint.stored = false
    checkpoint.value = next
    checkpoint.version = version
    nextDue = facts.nextDue
    return { chainTime: head.time, visited: keys.size, written, readAt: now }
  }

  /** passThenCallers, its end noted (a pass told by a change keeps its distance from it). */
  async function passAndCallers(): Promise<GraderPass | null> {
    try {
      return await passThenCallers()
    } finally {
      lastPassEnd = Date.now()
    }
  }

  /** A grading pass, then the caller records it (or newly stored calls and follows) changed. */
  async function passThenCallers(): Promise<GraderPass | null> {
    const p = await pass()
    // The pass's clock was read before anything it read: the callers' pass may start from it.
    const callers = await refreshCallerState(ch, logger, { kept: callerProgress, now: p?.readAt })
    const rows = (p?.written ?? 0) + callers.callers.length + callers.clusters.length
    if (rows > 0) deps.onGraded?.(rows)
    return p ? { ...p, callers } : null
  }

  /** A pass after the running one; `ready`, when given, runs first and may call it off. */
  const enqueue = (ready?: () => Promise<boolean>): Promise<GraderPass | null> => {
    const next = running.catch(() => null).then(async () => (!ready || (await ready()) ? passAndCallers() : null))
    running = next
    return next
  }
  const runOnce = () => enqueue()

  const logPass = (p: GraderPass | null) => {
    if (p && p.written > 0) logger.info({ chainTime: p.chainTime, visited: p.visited, written: p.written }, 'calls graded')
  }
  const logFailure = (err: unknown) => logger.error({ err }, 'call grading pass failed; it will be retried')

  function schedule(): void {
    if (stopped) return
    timer = setTimeout(() => {
      runOnce().then(logPass, logFailure).finally(schedule)
    }, intervalMs)
    timer.unref()
  }

  return {
    runOnce,
    changed(change) {
      if (stopped) return Promise.resolve()
      if (queued) return queued
      if (change.kind === 'chain' && !change.turnedReal && !change.rolledBack && change.chainTime < nextDue) return Promise.resolve()
      const next = enqueue(async () => {
        const wait = lastPassEnd + toldGapMs - Date.now()
        if (wait > 0) await new Promise((r) => setTimeout(r, wait))
        queued = undefined
        return !stopped
      })
      queued = next.then(logPass, logFailure)
      return queued
    },
    start() {
      if (!stopped) return
      stopped = false
      schedule()
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await running.catch(() => null)
      // What the passes advanced since the last store, stored on the way out.
      if (checkpoint?.value && !checkpoint.stored) {
        await saveCheckpoint(ch, chainId, checkpoint.value, checkpoint.version).catch((err) => logger.warn({ err }, 'grader checkpoint not stored at stop'))
        checkpoint.stored = true
      }
      await storeKeptProgress(ch, callerProgress).catch((err) => logger.warn({ err }, 'caller-state progress not stored at stop'))
    },
  }
}
