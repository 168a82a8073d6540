import type { BusMessage } from '../../core/bus/types.ts'

/**
 * What a step answers for one record. Steps answer these instead of throwing; a throw means the
 * step could not decide (an infrastructure failure, or a bug) and is classified by the loop.
 *  - ok: pass `value` to the next step (or to the sink after the last step);
 *  - drop: nothing to do for this record (counted, not dead-lettered);
 *  - dlq: the record can never be processed: it goes to `<topic>.dlq` with the reason;
 *  - hold: not yet: this record and every one after it in the partition wait for a later
 *    delivery (e.g. a post newer than the chain it refers to).
 */
export type StepResult<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'drop'; reason: string }
  | { kind: 'dlq'; reason: string }
  | { kind: 'hold'; reason: string }

export const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value })
export const drop = (reason: string): StepResult<never> => ({ kind: 'drop', reason })
export const dlq = (reason: string): StepResult<never> => ({ kind: 'dlq', reason })
export const hold = (reason: string): StepResult<never> => ({ kind: 'hold', reason })

/** One stage of a consumer, applied to each record in order. Built by a `createXStep(deps)` factory. */
export interface Step<I, O> {
  /** Names the step in metrics and in dead-letter headers. */
  readonly name: string
  run(input: I, message: BusMessage): StepResult<O> | Promise<StepResult<O>>
  /** Called once per delivered batch before its first record (e.g. to refresh a lookup table). */
  beforeBatch?(): Promise<void>
}
