import { z } from 'zod'
import { SCAN_KINDS } from './scan-job.ts'

/**
 * One scan job on `scans.jobs`: which job to run. The job's state lives in `scan_jobs`
 * (ClickHouse); the worker reads it there, so a redelivered message of a finished job is a no-op.
 */
export const ScanJobMessage = z.object({
  job_id: z.string().min(1).max(100),
  chain_id: z.number().int().positive(),
  kind: z.enum(SCAN_KINDS),
  token: z.string().regex(/^0x[0-9a-f]{40}$/),
})
export type ScanJobMessage = z.infer<typeof ScanJobMessage>
