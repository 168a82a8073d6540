/**
 * Subscription plans and what each includes, in one place. The contract names them
 * inconsistently (Founders 29/month; Signal Feed 49/month with watchlist, webhook and history;
 * the webhook also under Desk); this is our reading. Every plan runs the paid endpoints without
 * per-call payment; features gate the key-only endpoints.
 */
export type Feature = 'watchlist' | 'webhook' | 'history'

export const PLANS = {
  founders: { usdPerMonth: 29, features: [] as Feature[] },
  signal_feed: { usdPerMonth: 49, features: ['watchlist', 'webhook', 'history'] as Feature[] },
  desk: { usdPerMonth: null, features: ['webhook'] as Feature[] },
} as const

export type PlanName = keyof typeof PLANS

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[]

export function planHas(plan: string, feature: Feature): boolean {
  return (PLANS as Record<string, { features: Feature[] }>)[plan]?.features.includes(feature) ?? false
}

/** At most this many tokens on one key's watchlist. */
export const WATCHLIST_LIMIT = 10
