import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import type { Logger } from '../../core/logger.ts'
import { PROVEN_MIN_SCORE } from '../../products/token/deployer-score.ts'
import type { Store } from '../../core/store/types.ts'
import type { Metrics } from '../../core/metrics.ts'
import type { Watermarks } from '../../core/serving/watermarks.ts'
import type { AlertEvent } from '../../products/alerts/alert.ts'
import type { CallerRecord, SocialServing } from '../../products/social/social-serving.ts'
import type { DeployerHistory, TokenRecord, TokenServing } from '../../products/token/token-serving.ts'

/** proven_deployer_launch: a proven deployer (PROVEN_MIN_SCORE) with at least this many earlier real tokens. */
export const PROVEN_MIN_PRIOR_REAL = 2
const DAY_MS = 86_400_000

export interface ProvenLaunch {
  token: TokenRecord
  deployer: DeployerHistory
  priorReal: number
}

/** Launches per pass at most: the rest are taken by the next pass (the cursor says where it stopped). */
const LAUNCHES_PER_PASS = 1_000

/**
 * Real tokens the deployer launched before `t`. The history lists the newest launches; those it
 * leaves out are all older than `t`, so their real ones count as prior too.
 */
function priorRealOf(d: DeployerHistory, t: TokenRecord): number {
  const listedReal = d.launches.filter((x) => x.realBlock !== null).length
  const before = d.launches.filter((x) => x.launch!.visibleUs < t.launch!.visibleUs && x.realBlock !== null).length
  return d.real - listedReal + before
}

/**
 * Launches in (afterVisibleUs, throughUs] (feed order, read from launch_feed) by proven deployers
 * with enough earlier real tokens, and the cursor of the last launch examined.
 */
export async function provenLaunches(tokens: TokenServing, afterVisibleUs: number, throughUs: number): Promise<{ launches: ProvenLaunch[]; lastUs: number | null }> {
  const page = await tokens.feedAfter(afterVisibleUs, throughUs, LAUNCHES_PER_PASS)
  const scored = await tokens.deployers(page.tokens.map((t) => t.deployer ?? '').filter(Boolean))
  const histories = new Map<string, DeployerHistory>()
  for (const d of scored.values()) {
    if (d.score === null || d.score < PROVEN_MIN_SCORE) continue
    const h = await tokens.deployerHistory(d.deployer)
    if (h) histories.set(d.deployer, h)
  }
  return { launches: provenAmong(page.tokens, histories), lastUs: page.lastUs }
}

/** Of `launches` (feed order), those by proven deployers (their histories given) with enough earlier real tokens. */
export function provenAmong(launches: TokenRecord[], histories: Map<string, DeployerHistory>): ProvenLaunch[] {
  const out: ProvenLaunch[] = []
  for (const t of launches) {
    const d = t.deployer ? histories.get(t.deployer) : undefined
    if (!d || !t.launch || d.score === null || d.score < PROVEN_MIN_SCORE) continue
    const priorReal = priorRealOf(d, t)
    if (priorReal >= PROVEN_MIN_PRIOR_REAL) out.push({ token: t, deployer: d, priorReal })
  }
  return out
}

/** The UTC day (YYYY-MM-DD) of the launch: the once-per-deployer-per-day window. */
const utcDay = (iso: string) => new Date(iso).toISOString().slice(0, 10)

/**
 * The proven-deployer alerts for launches after `afterVisibleUs`, at most one per deployer per
 * UTC day of launch: the store's setIfAbsent decides, so API processes running this side by
 * side still alert once.
 */
export async function provenDeployerAlerts(launches: ProvenLaunch[], chainId: number, store: Store): Promise<AlertEvent[]> {
  const out: AlertEvent[] = []
  for (const { token: t, deployer: d, priorReal } of launches) {
    const day = utcDay(t.launch!.launchedAt)
    if (!(await store.setIfAbsent(`alert:proven:${d.deployer}:${day}`, t.token, 2 * DAY_MS))) continue
    out.push({
      id: `proven_deployer_launch:${d.deployer}:${day}`,
      kind: 'proven_deployer_launch',
      created_at: new Date().toISOString(),
      data: {
        chain_id: chainId, token: t.token, name: t.name, symbol: t.symbol, pool: t.launch!.pool, block: t.launch!.block, launched_at: t.launch!.launchedAt,
        deployer: d.deployer, score: d.score, band: d.band, launched: d.launched, real: d.real, prior_real: priorReal,
      },
    })
  }
  return out
}

export interface FreshCall {
  author: string
  token: string
  postId: string
  calledAt: number
  capturedAt: number
}

/**
 * measured_caller_call alerts: calls by measured callers, each with `lp`, the providers whose
 * liquidity is still in the token's launch pool (`lpByPool`). One alert per caller and token.
 */
export async function measuredCallAlerts(calls: FreshCall[], callers: Map<string, CallerRecord>, tokens: Map<string, TokenRecord>, lpByPool: Map<string, string[]>, store: Store): Promise<AlertEvent[]> {
  const out: AlertEvent[] = []
  for (const c of calls) {
    const caller = callers.get(c.author)
    if (!caller?.measured) continue
    if (!(await store.setIfAbsent(`alert:call:${c.author}:${c.token}`, c.postId, 30 * DAY_MS))) continue
    const t = tokens.get(c.token)
    const pool = t?.launch?.pool ?? null
    out.push({
      id: `measured_caller_call:${c.author}:${c.token}`,
      kind: 'measured_caller_call',
      created_at: new Date().toISOString(),
      data: {
        author: c.author, token: c.token, post_id: c.postId, called_at: new Date(c.calledAt * 1000).toISOString(),
        caller: { score: caller.score, grade: caller.grade, graded_calls: caller.graded, cluster: caller.cluster },
        symbol: t?.symbol ?? null, deployer: t?.deployer ?? null, pool,
        lp: pool ? (lpByPool.get(pool) ?? []) : [],
      },
    })
  }
  return out
}

/**
 * Calls first captured at or after `sinceS` (unix seconds): the (author, token) pairs mentioned
 * since then (mentions_by_capture, a range read), kept when their first capture (calls, read by
 * its (author, token) key) is that recent.
 */
async function freshCalls(ch: ClickHouseClient, sinceS: number): Promise<FreshCall[]> {
  // Aliases differ from the column names: an alias named like its column would nest aggregates.
  const rows = await queryRows<{ author: string; token: string; post_id: string; first_called: string; first_captured: string }>(
    ch,
    `SELECT author, token, argMinMerge(first_post) AS post_id, toUnixTimestamp(min(called_at)) AS first_called, toUnixTimestamp(min(captured_at)) AS first_captured
     FROM calls
     WHERE (author, token) IN (SELECT DISTINCT author, token FROM mentions_by_capture WHERE captured_at >= toDateTime({since:UInt32}) LIMIT 5000)
     GROUP BY author, token HAVING first_captured >= {since:UInt32} ORDER BY first_captured, author, token LIMIT 5000`,
    { since: sinceS },
  )
  return rows.map((r) => ({ author: r.author, token: r.token, postId: r.post_id, calledAt: Number(r.first_called), capturedAt: Number(r.first_captured) }))
}

/** Providers that added liquidity to each pool and have not removed all of it (pool_providers, by its (chain, pool) key). */
export async function liquidityProviders(ch: ClickHouseClient, chainId: number, pools: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>()
  if (!pools.length) return out
  const rows = await queryRows<{ pool: string; provider: string }>(
    ch,
    `SELECT pool, provider FROM pool_providers WHERE chain_id = {chain:UInt32} AND pool IN {pools:Array(String)}
     GROUP BY pool, provider HAVING sum(added) > sum(removed) ORDER BY pool, provider`,
    { chain: chainId, pools },
  )
  for (const r of rows) {
    if (!out.has(r.pool)) out.set(r.pool, [])
    out.get(r.pool)!.push(r.provider)
  }
  return out
}

export interface AlertProducers {
  /** One pass over both kinds of alert (also what the safety timer runs); the first pass only sets the cursors. */
  tick(): Promise<void>
  start(): void
  stop(): Promise<void>
}

/** What a pass looks at: the launches (new with a chain's served batch) or the calls (new with social rows). */
export type ProducerPart = 'launches' | 'calls'

/**
 * The producers of the alerts role: they compare the token and caller serving state with what
 * they last saw and publish alerts for what is new. They are woken by what changed (issue 23): a
 * served batch of their chain looks at the launches, social rows inserted look at the calls,
 * through the watermarks' advances (pushed in one process, polled across processes). A timer
 * (`intervalMs`, a minute) runs both parts too, as a safety net should an advance be missed.
 * History before the first pass is not alerted.
 */
export function createAlertProducers(deps: {
  ch: ClickHouseClient
  store: Store
  tokens: TokenServing
  social: SocialServing
  watermarks: Pick<Watermarks, 'onAdvance'>
  metrics: Pick<Metrics, 'alertProducerPasses'>
  publish: (e: AlertEvent) => Promise<void>
  logger: Logger
  intervalMs?: number
}): AlertProducers {
  let lastVisibleUs: number | null = null
  let callsSince: number | null = null
  // The (author/token) calls captured in second `callsSince` that a pass already examined.
  const examined = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let stopListening: (() => void) | undefined
  let running: Promise<void> | undefined
  // Parts asked for while a pass runs: one more pass takes them all.
  const due = new Set<ProducerPart>()

  async function launchesPass() {
    const nowUs = Date.now() * 1000
    if (lastVisibleUs === null) {
      lastVisibleUs = (await deps.tokens.feedBefore(nowUs, 1)).lastUs ?? 0
      return
    }
    const { launches, lastUs } = await provenLaunches(deps.tokens, lastVisibleUs, nowUs)
    for (const e of await provenDeployerAlerts(launches, deps.tokens.chainId, deps.store)) await deps.publish(e)
    if (lastUs !== null) lastVisibleUs = lastUs
  }

  async function callsPass() {
    if (callsSince === null) {
      const [r] = await queryRows<{ t: string }>(deps.ch, 'SELECT toUnixTimestamp(captured_at) AS t FROM mentions_by_capture ORDER BY captured_at DESC LIMIT 1')
      callsSince = Number(r?.t ?? 0) + 1
      return
    }
    // A pass starts at the second the last one ended in (same-second captures may still arrive):
    // the calls it already examined there are not read about again.
    const calls = (await freshCalls(deps.ch, callsSince)).filter((c) => !examined.has(`${c.author}/${c.token}`))
    if (!calls.length) return
    // The callers of these calls only, by key (cached until the pipeline changes them).
    const callers = await deps.social.callers([...new Set(calls.map((c) => c.author))])
    const tokens = await deps.tokens.tokens(calls.map((c) => c.token))
    const pools = [...new Set(calls.map((c) => tokens.get(c.token)?.launch?.pool).filter((p): p is string => !!p))]
    const lp = await liquidityProviders(deps.ch, deps.tokens.chainId, pools)
    for (const e of await measuredCallAlerts(calls, callers, tokens, lp, deps.store)) await deps.publish(e)
    // Same-second captures may still arrive: the next pass starts at this second again (the
    // store's setIfAbsent drops a repeat that another process's producers published).
    const last = Math.max(callsSince, ...calls.map((c) => c.capturedAt))
    if (last > callsSince) examined.clear()
    for (const c of calls) if (c.capturedAt === last) examined.add(`${c.author}/${c.token}`)
    callsSince = last
  }

  const PASSES: Record<ProducerPart, () => Promise<void>> = { launches: launchesPass, calls: callsPass }

  function wake(parts: ProducerPart[]): Promise<void> {
    for (const p of parts) due.add(p)
    running ??= (async () => {
      while (due.size) {
        const now = [...due]
        due.clear()
        for (const part of now) {
          deps.metrics.alertProducerPasses.inc({ part })
          await PASSES[part]().catch((err) => deps.logger.error({ err, part }, 'alert producers pass failed'))
        }
      }
    })().finally(() => (running = undefined))
    return running
  }

  return {
    tick: () => wake(['launches', 'calls']),
    start() {
      stopListening ??= deps.watermarks.onAdvance((source) => {
        if (source === 'social') void wake(['calls'])
        else if (source === deps.tokens.chainId) void wake(['launches'])
      })
      timer ??= setInterval(() => void wake(['launches', 'calls']), deps.intervalMs ?? 60_000)
      timer.unref()
      // The first pass sets the cursors: what is older is not alerted.
      void wake(['launches', 'calls'])
    },
    async stop() {
      stopListening?.()
      stopListening = undefined
      if (timer) clearInterval(timer)
      timer = undefined
      due.clear()
      await running
    },
  }
}
