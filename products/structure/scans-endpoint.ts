import { z } from 'zod'
import type { ScanKind } from './scan-job.ts'
import { latestForensicsResult } from './scan-results.ts'
import { isKnownToken, refuseWrappedEther } from './known-token.ts'
import { ScanQueueFull } from './scan-queue.ts'
import { limitScanRequests } from './scan-rate.ts'
import { Address, BlockNumber } from '../../core/endpoint/schemas.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ForensicsView } from './forensics-view.ts'
import { ScanJobView, scanJobView } from './scan-job-view.ts'

/**
 * Scan jobs: POST /structure/{token} and POST /forensics/{token} queue a scan on the bus for
 * the scans role (pipelines/scans/); GET /forensics/{token} answers the cached result with the
 * newest job. States and transitions: products/structure/scan-job.ts.
 */
const token = z.object({ token: Address })
const JobAnswer = z.object({ data: ScanJobView })
const STATES = 'Job states: queued, running, done, failed (with its reason). A second POST while the job is queued or running answers the same job; after done or failed it queues a new one.'

const BOUNDS =
  'Bounded: at most SCAN_REQUESTS_PER_MINUTE_PER_IP scan requests (structure and forensics together) per minute per client address and SCAN_REQUESTS_PER_MINUTE_PER_KEY per presented key (429 with Retry-After); ' +
  'an address the chain has no transfer, pool or creation of is refused with 404 before anything is queued; at most SCAN_QUEUE_MAX requested scans queued or running at once (429 with Retry-After when full; the daily scans of watched tokens have a lane of their own).'

/** Seconds a caller refused by a full scan queue is told to wait. */
const QUEUE_FULL_RETRY_SECONDS = 30

/** The POST that queues a scan of `kind` (both answer the job the same way). */
function queueScanEndpoint(kind: ScanKind, summary: string, description: string) {
  return defineEndpoint<Uses<'scans' | 'ch' | 'store' | 'config' | 'quoteTokens'>>()({
    method: 'POST',
    path: `/${kind}/{token}`,
    summary,
    description: `${description} ${STATES} ${BOUNDS}`,
    tags: ['structure'],
    params: token,
    response: JobAnswer,
    access: { kind: 'free' },
    errors: ['not_found'],
    async handler({ params, deps, request }) {
      await limitScanRequests(deps.store, request, { perAddress: deps.config.SCAN_REQUESTS_PER_MINUTE_PER_IP, perKey: deps.config.SCAN_REQUESTS_PER_MINUTE_PER_KEY })
      if (kind === 'structure') refuseWrappedEther(deps.quoteTokens, params.token)
      if (!(await isKnownToken(deps.ch, deps.scans.chainId, params.token))) {
        throw new ApiError('not_found', `Chain ${deps.scans.chainId} has no transfer, pool or creation of ${params.token}: there is nothing to scan.`, { token: params.token })
      }
      try {
        return { data: scanJobView(await deps.scans.request(kind, params.token, 'request')) }
      } catch (err) {
        if (!(err instanceof ScanQueueFull)) throw err
        throw new ApiError('rate_limited', `The scan queue is full (${err.max} requested scans queued or running); retry shortly.`, { limit: err.max, queue: 'scans' }, { 'retry-after': String(QUEUE_FULL_RETRY_SECONDS) })
      }
    },
  })
}

export const queueStructureScanEndpoint = queueScanEndpoint(
  'structure',
  'Queue a structure scan',
  'Queues a holder-structure scan of the token: a scans worker takes the structure answer and archives it as a holder snapshot (feeding /entity and /structure/{token}/history).',
)

export const queueForensicsScanEndpoint = queueScanEndpoint(
  'forensics',
  'Queue a forensics scan',
  "Queues a forensics scan of the token's pre-launch flows; GET /forensics/{token} then answers the result.",
)

export const forensicsEndpoint = defineEndpoint<Uses<'scans' | 'ch'>>()({
  method: 'GET',
  path: '/forensics/{token}',
  summary: 'Forensics results',
  description:
    "The token's newest forensics result (cached: computed by the last scan that finished) and its newest scan job. Forensics: who funded the deployer, the supply sent before the first swap and to whom, liquidity added and pulled by whom, and the share of supply the insider-labelled wallets hold now; amounts exact in wei. `found` is false when no scan has finished for the token (POST /forensics/{token} queues one).",
  tags: ['structure'],
  params: token,
  response: z.object({
    data: z.object({
      token: z.string(),
      found: z.boolean(),
      job: ScanJobView.nullable().meta({ description: 'the newest forensics job of the token' }),
      computed_at: z.string().nullable(),
      result: ForensicsView.nullable(),
    }),
    chain_id: z.number().int(),
    measured_through_block: BlockNumber.nullable().meta({ description: 'the block the cached result is measured through' }),
  }),
  access: { kind: 'free' },
  async handler({ params, deps }) {
    const [job, cached] = await Promise.all([
      deps.scans.latest('forensics', params.token),
      latestForensicsResult<ForensicsView>(deps.ch, deps.scans.chainId, params.token),
    ])
    return {
      data: { token: params.token, found: cached !== null, job: job && scanJobView(job), computed_at: cached?.computedAt ?? null, result: cached?.result ?? null },
      chain_id: deps.scans.chainId,
      measured_through_block: cached?.measuredThroughBlock ?? null,
    }
  },
})
