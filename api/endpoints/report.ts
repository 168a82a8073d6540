import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import { isEarlyCall } from '../../core/domain/caller-grade.ts'
import { VERDICT_RULES_MARKDOWN } from '../../core/domain/verdict.ts'
import { Address, Measured } from '../catalog/schemas.ts'
import { defineEndpoint } from '../catalog/types.ts'
import type { ApiDeps } from '../deps.ts'
import type { CallerRecord } from '../serving/social-serving.ts'
import { CallerRecordView, callerRecordView, iso } from '../views/caller.ts'
import type { TokenRecord } from '../serving/token-serving.ts'
import { DeployerHistoryView, deployerHistoryView } from '../views/deployer.ts'
import { TokenView, tokenView } from '../views/token.ts'
import { VerdictView, verdictView } from '../views/verdict.ts'
import { tokenVerdictSignals } from '../serving/verdict-signals.ts'

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

/** Forensics scans are declared (POST/GET /forensics) but not run yet: the dossier says so. */
const Forensics = z.object({
  status: z.literal('not_scanned'),
  available: z.literal(false).meta({ description: 'forensics scans are not offered yet; no result is inferred' }),
  note: z.string(),
})

const FORENSICS = { status: 'not_scanned', available: false, note: 'Forensics scans are not available yet; this dossier contains no forensics result.' } as const

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
  description: `Full dossier of a token on chain 4663: the verdict (signal, confidence, reasons), the deployer record with its launch history (as /deployer), the token vitals (as /token), the measured callers who called it (true total, earliest 50 listed) and the forensics status (scans are not available yet: not_scanned). Unknown tokens answer found:false with high_risk, confidence 0 and the reason not_tracked. Free 25 per day per IP (also with ?tier=free), then 0.05.\n\n${VERDICT_RULES_MARKDOWN}`,
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
        forensics: FORENSICS,
      },
      chain_id: deps.tokens.chainId,
      measured_through_block: deps.tokens.measuredThrough(),
    }
  },
})
