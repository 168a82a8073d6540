import { describe, expect, it } from 'vitest'
import { diffFollows } from '../../pipelines/process/social/follow-diff.ts'

const snap = (observed_at: number, following: string[], watched = true) => ({ account: 'vitalik', observed_at, following, watched })

describe('diffFollows()', () => {
  it('diffFollows() marks every edge of the first snapshot as a baseline with no previous poll', () => {
    const rows = diffFollows(null, snap(100, ['a', 'b', 'b']))
    expect(rows).toEqual([
      { id: 'vitalik>a@baseline', watcher: 'vitalik', followed: 'a', event: 'baseline', observed_at: 100, previous_poll: null, watched: 1 },
      { id: 'vitalik>b@baseline', watcher: 'vitalik', followed: 'b', event: 'baseline', observed_at: 100, previous_poll: null, watched: 1 },
    ])
  })

  it('diffFollows() reports follows and unfollows between consecutive polls, dated by the later poll', () => {
    const rows = diffFollows({ observed_at: 100, following: ['a', 'b'] }, snap(21700, ['b', 'c']))
    expect(rows.map((r) => [r.event, r.followed, r.observed_at, r.previous_poll])).toEqual([
      ['follow', 'c', 21700, 100],
      ['unfollow', 'a', 21700, 100],
    ])
  })

  it('diffFollows() gives the same ids for the same snapshots, and nothing for an unchanged list', () => {
    const prev = { observed_at: 100, following: ['a'] }
    expect(diffFollows(prev, snap(200, ['a', 'z']))).toEqual(diffFollows(prev, snap(200, ['a', 'z'])))
    expect(diffFollows(prev, snap(200, ['a']))).toEqual([])
  })
})
