import type { ClickHouseClient } from '../../../core/clickhouse.ts'
import { queryRows } from '../../../core/clickhouse.ts'
import { ok, type Step } from '../../consumer/step-result.ts'
import type { FollowSnapshot } from '../../records/social.ts'
import { diffFollows } from './follow-diff.ts'

/** A snapshot's transitions against the account's previous snapshot, and the snapshot row itself. */
export interface FollowRows {
  events: Array<Record<string, unknown>>
  snapshot: Record<string, unknown>
}

/**
 * Diffs each follow snapshot against the account's previous one (kept in memory, else read from
 * `follow_snapshots`). Snapshots arriving out of order are diffed against the one before them.
 */
export function createFollowDiffStep(deps: { ch: ClickHouseClient }): Step<FollowSnapshot, FollowRows> {
  const last = new Map<string, { observed_at: number; following: string[] }>()

  async function previous(account: string, before: number) {
    const cached = last.get(account)
    if (cached && cached.observed_at < before) return cached
    const [r] = await queryRows<{ observed_at: string; following: string[] }>(
      deps.ch,
      'SELECT toUnixTimestamp(observed_at) AS observed_at, following FROM follow_snapshots FINAL WHERE account = {a:String} AND observed_at < {t:UInt32} ORDER BY observed_at DESC LIMIT 1',
      { a: account, t: before },
    )
    return r ? { observed_at: Number(r.observed_at), following: r.following } : null
  }

  return {
    name: 'follow-diff',
    async run(s) {
      const events = diffFollows(await previous(s.account, s.observed_at), s).map((e) => ({ ...e }))
      const cached = last.get(s.account)
      if (!cached || cached.observed_at < s.observed_at) last.set(s.account, { observed_at: s.observed_at, following: s.following })
      return ok({ events, snapshot: { account: s.account, observed_at: s.observed_at, following: [...new Set(s.following)], watched: s.watched ? 1 : 0 } })
    },
  }
}
