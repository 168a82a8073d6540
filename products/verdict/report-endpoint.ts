import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { isEarlyCall } from '../social/caller-grade.ts'
import { VERDICT_RULES_MARKDOWN } from './verdict.ts'
import { Address, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import type { CallerRecord } from '../social/social-serving.ts'
import { CallerRecordView, callerRecordView, iso } from '../social/caller-view.ts'
import type { TokenRecord } from '../token/token-serving.ts'
import { DeployerHistoryView, deployerHistoryView } from '../token/deployer-view.ts'
import { TokenView, tokenView } from '../token/token-view.ts'
import { VerdictView, verdictView } from './verdict-view.ts'
import { tokenVerdictSignals } from './verdict-signals-serving.ts'
import { SCAN_STATES } from '../structure/scan-job.ts'
import { ScanJobView, scanJobView } from '../structure/scan-job-view.ts'

/** Measured callers listed in a dossier, earliest call first. */
const CALLERS_LIMIT = 50

const DossierCaller = CallerRecordView.extend({
  called_at: z.string().meta({ description: "the account's first mention of the token" }),
  early: z.boolean().meta({ description: 'called before the token became real' }),
})

const DossierCallers = z.object({
  accounts: z.number().int().meta({ description: 'distinct accounts that called (mentioned) the token' }),
  measured: z.number().int().meta({ description: 'how many of them are measured callers (4+ graded calls): the true total of `list`' }),
  list: z.array(DossierCaller).meta({ description: 'measured callers, earliest call first (at most 50)' }),
  truncated: z.boolean(),
})

/**
 * The forensics status of the dossier: the token's newest forensics scan job (POST /forensics/{token}
 * queues one, the scans role runs it). The result itself is GET /forensics/{token}: the dossier
 * names the job and the block its result is measured through, never infers a result.
 */
const Forensics = z.object({
  status: z.enum(['not_scanned', ...SCAN_STATES]).meta({ description: 'not_scanned (no forensics scan was ever requested), else the newest scan job\'s state: queued, running, done or failed' }),
  job: ScanJobView.nullable().meta({ description: 'the newest forensics scan job of the token; null when not_scanned' }),
  result: z.string().meta({ description: 'where the result is served (GET /forensics/{token}; free)' }),
})

async function forensicsStatus(deps: ApiDeps, token: string): Promise<z.infer<typeof Forensics>> {
  const job = await deps.scans.latest('forensics', token)
  return { status: job?.state ?? 'not_scanned', job: job && scanJobView(job), result: `/forensics/${token}` }
}

/**
 * Accounts that called the token: first call time per author (cached per chain and social
 * version). Read from `mentions` by its token key: a call is an author's first mention of the
 * token (the `calls` view's own definition), and `calls` is ordered by author.
 */
async function callsOfToken(deps: ApiDeps, token: string): Promise<Array<{ author: string; calledAt: number }>> {
  const version = deps.watermarks.socialChainVersion(4663)
  return deps.cache.get(`token-calls:${token}`, version, async () => {
    const rows = await queryRows<{ author: string; called_at: string }>(
      deps.ch,
      'SELECT author, toUnixTimestamp(min(posted_at)) AS called_at FROM mentions WHERE token = {t:String} GROUP BY author ORDER BY called_at, author',
      { t: token },
    )
    return rows.map((r) => ({ author: r.author, calledAt: Number(r.called_at) }))
  })
}

function callersView(calls: Array<{ author: string; calledAt: number }>, callers: Map<string, CallerRecord>, t: TokenRecord): z.infer<typeof DossierCallers> {
  const realAt = t.realAt === null ? null : Date.parse(t.realAt) / 1000
  const measured = calls.filter((c) => callers.get(c.author)?.measured)
  return {
    accounts: calls.length,
    measured: measured.length,
    list: measured.slice(0, CALLERS_LIMIT).map((c) => ({
      ...callerRecordView(c.author, callers.get(c.author)),
      called_at: iso(c.calledAt),
      early: isEarlyCall(c.calledAt, realAt),
    })),
    truncated: measured.length > CALLERS_LIMIT,
  }
}

export const reportEndpoint = defineEndpoint<ApiDeps>()({
  method: 'GET',
  path: '/report/{token}',
  summary: 'Token dossier',
  description: `Full dossier of a token on chain 4663: the verdict (signal, confidence, reasons), the deployer record with its launch history (as /deployer), the token vitals (as /token), the measured callers who called it (true total, earliest 50 listed) and the forensics status (the newest forensics scan job: not_scanned, queued, running, done or failed; its result at GET /forensics/{token}). Unknown tokens answer found:false with high_risk, confidence 0 and the reason not_tracked. Free 25 per day per IP (also with ?tier=free), then 0.05.\n\n${VERDICT_RULES_MARKDOWN}`,
  tags: ['token'],
  params: z.object({ token: Address }),
  query: z.object({ tier: z.enum(['free']).optional().meta({ description: 'free: use the free daily quota (25 per day per IP)' }) }),
  response: z.object({
    signal: VerdictView.shape.signal,
    confidence: VerdictView.shape.confidence,
    data: z.object({
      found: z.boolean(),
      verdict: VerdictView,
      token: TokenView,
      deployer: DeployerHistoryView.nullable().meta({ description: "the deployer's record with launch history; null when the contract creation was not observed" }),
      callers: DossierCallers,
      forensics: Forensics,
    }),
    ...Measured,
  }),
  access: { kind: 'mixed', price: '0.05', freePerDay: 25 },
  tool: { name: 'svc_report' },
  async handler({ params, deps }) {
    const t = await deps.tokens.token(params.token)
    const d = t?.deployer ? await deps.tokens.deployerHistory(t.deployer) : undefined
    const v = verdictView(t, d, t ? await tokenVerdictSignals(deps, t) : undefined)
    const calls = t ? await callsOfToken(deps, params.token) : []
    // The records of the token's callers only, by key.
    const callers = await deps.social.callers(calls.map((c) => c.author))
    return {
      signal: v.signal,
      confidence: v.confidence,
      data: {
        found: Boolean(t),
        verdict: v,
        token: tokenView(params.token, t, d),
        deployer: t?.deployer ? deployerHistoryView(t.deployer, d) : null,
        callers: t ? callersView(calls, callers, t) : { accounts: 0, measured: 0, list: [], truncated: false },
        forensics: await forensicsStatus(deps, params.token),
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
