import { ENGINE_PRIORITY } from './engine-priority.ts'
/**
 * Subscription plans and what each includes, in one place. The contract names them
 * inconsistently (Founders 29/month; Signal Feed 49/month with watchlist, webhook and history;
 * the webhook also under Desk); this is our reading. Every plan runs the paid endpoints without
 * per-call payment; features gate the key-only endpoints.
 */
export type Feature = 'watchlist' | 'webhook' | 'history' | 'sql'

export const PLANS = {
  founders: { usdPerMonth: 29, features: [] as Feature[] },
  signal_feed: { usdPerMonth: 49, features: ['watchlist', 'webhook', 'history'] as Feature[] },
  desk: { usdPerMonth: null, features: ['webhook'] as Feature[] },
  /** The data team: read-only SQL through /clickhouse (the ClickHouse HTTP interface), within SQL_LIMITS. */
  analyst: { usdPerMonth: null, features: ['sql'] as Feature[] },
} as const

export type PlanName = keyof typeof PLANS

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[]

export function planHas(plan: string, feature: Feature): boolean {
  return (PLANS as Record<string, { features: Feature[] }>)[plan]?.features.includes(feature) ?? false
}

/** At most this many tokens on one key's watchlist. */
export const WATCHLIST_LIMIT = 10

/**
 * What one analyst key may spend through /clickhouse: ClickHouse's own settings, applied to every
 * query (a client's own values can only lower them), and a rate of queries per minute. The
 * distributed mode gives the same limits to the cluster as a settings profile and a quota
 * (infra/clickhouse/analyst-access.sql).
 */
export const SQL_LIMITS = {
  /** 2: reads only, and settings may be changed (clients send some), except readonly itself. */
  readonly: 2,
  max_execution_time: 30,
  max_memory_usage: 2 * 1024 ** 3,
  max_result_rows: 100_000,
  max_result_bytes: 256 * 1024 ** 2,
  result_overflow_mode: 'throw',
  /** ClickHouse's query priority: an analyst's query pauses while one of the service's runs (core/engine-priority.ts). */
  priority: ENGINE_PRIORITY.analyst,
  queriesPerMinute: 60,
} as const
