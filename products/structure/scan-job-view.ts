import { z } from 'zod'
import { SCAN_KINDS, SCAN_STATES, SCAN_TRIGGERS, type ScanJob } from './scan-job.ts'
import { BlockNumber } from '../../core/endpoint/schemas.ts'

/** A scan job as POST /structure/{token} and GET|POST /forensics/{token} answer it. */
export const ScanJobView = z
  .object({
    id: z.string().meta({ description: 'the job id' }),
    kind: z.enum(SCAN_KINDS),
    token: z.string(),
    state: z.enum(SCAN_STATES).meta({ description: 'queued → running → done | failed; a repeated request while queued or running answers the same job' }),
    reason: z.string().nullable().meta({ description: 'why the scan failed; null unless failed' }),
    trigger: z.enum(SCAN_TRIGGERS).meta({ description: 'request (a POST) or daily (the automatic scan of a watched token)' }),
    requested_at: z.string(),
    updated_at: z.string().meta({ description: 'when the job entered its state' }),
    measured_through_block: BlockNumber.nullable().meta({ description: 'the block its result is measured through, once done' }),
  })

export function scanJobView(j: ScanJob): z.infer<typeof ScanJobView> {
  return {
    id: j.id, kind: j.kind, token: j.token, state: j.state, reason: j.reason, trigger: j.trigger,
    requested_at: j.requestedAt, updated_at: j.updatedAt, measured_through_block: j.measuredThroughBlock,
  }
}
