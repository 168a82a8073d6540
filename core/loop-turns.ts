/**
 * Long synchronous work handing the event loop a turn. A backfill batch of thousands of blocks is
 * parsed, turned into rows and encoded for its inserts in one process; awaiting what is already
 * resolved never leaves the microtask queue, so without a turn the pipeline's process answered
 * nothing for 2-4 s at a time while catching up (timers, sockets, the API process's questions:
 * /health's bus check timed out and answered 503 through the default world's backfill).
 */

/** The longest stretch of synchronous work between two turns of the event loop. */
export const LOOP_SLICE_MS = 20

let sliceStarted = performance.now()

/**
 * Give the event loop a turn (its I/O, timers and IPC run) when the current stretch has run
 * LOOP_SLICE_MS or more; otherwise nothing. Call it between the items of a long loop: its cost
 * when no turn is due is one clock read.
 */
export async function loopTurnIfDue(): Promise<void> {
  if (performance.now() - sliceStarted < LOOP_SLICE_MS) return
  await new Promise<void>((resolve) => setImmediate(resolve))
  sliceStarted = performance.now()
}
