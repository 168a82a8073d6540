import type { FollowSnapshot } from '../../records/social.ts'

export interface FollowEventRow {
  id: string
  watcher: string
  followed: string
  event: 'baseline' | 'follow' | 'unfollow'
  observed_at: number
  /** The poll before this one: the transition happened between the two. Null for baselines. */
  previous_poll: number | null
  watched: number
}

/**
 * The transitions between two consecutive snapshots of one account. The first snapshot of an
 * account is the baseline: its edges existed when tracking began, carry no date and are never
 * reported as follows. Ids are deterministic, so processing a snapshot twice changes nothing.
 */
export function diffFollows(prev: Pick<FollowSnapshot, 'observed_at' | 'following'> | null, next: FollowSnapshot): FollowEventRow[] {
  const base = { watcher: next.account, observed_at: next.observed_at, watched: next.watched ? 1 : 0 }
  if (!prev) {
    return [...new Set(next.following)].map((followed) => ({
      ...base,
      id: `${next.account}>${followed}@baseline`,
      followed,
      event: 'baseline' as const,
      previous_poll: null,
    }))
  }
  const before = new Set(prev.following)
  const after = new Set(next.following)
  const out: FollowEventRow[] = []
  for (const followed of after) {
    if (!before.has(followed)) out.push({ ...base, id: `${next.account}>${followed}@${next.observed_at}:follow`, followed, event: 'follow', previous_poll: prev.observed_at })
  }
  for (const followed of before) {
    if (!after.has(followed)) out.push({ ...base, id: `${next.account}>${followed}@${next.observed_at}:unfollow`, followed, event: 'unfollow', previous_poll: prev.observed_at })
  }
  return out
}
