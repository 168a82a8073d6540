import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import type { BusRecord } from '../../core/bus/types.ts'
import type { FollowSnapshot, SocialPost } from '../../pipelines/records/social.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * What a pass of the caller-state refresh changes, on constructed social records over the
 * simulator's chain: exactly the callers whose grades it wrote, exactly the accounts whose
 * cluster a follow snapshot changed.
 */
let env: Embedded
let chainEnd: number
let postSeq = 0

async function publish(topic: string, records: object[]): Promise<void> {
  await env.rt.bus.publish(topic, records.map((r): BusRecord => ({ key: null, value: JSON.stringify(r) })))
}

const count = async (table: string) => Number((await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM ${table}`))[0]!.n)

async function stored(table: string, atLeast: number): Promise<void> {
  const deadline = Date.now() + 20_000
  while ((await count(table)) < atLeast) {
    if (Date.now() > deadline) throw new Error(`${table} never reached ${atLeast} rows`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The keys caller_changes names under one seq, by kind. */
async function changesAt(seq: number): Promise<{ caller: string[]; cluster: string[] }> {
  const rows = await queryRows<{ kind: string; key: string }>(env.rt.ch, 'SELECT kind, key FROM caller_changes WHERE seq = {seq:UInt64} ORDER BY key', { seq })
  return { caller: rows.filter((r) => r.kind === 'caller').map((r) => r.key), cluster: rows.filter((r) => r.kind === 'cluster').map((r) => r.key) }
}

beforeAll(async () => {
  env = await startEmbedded({}, { social: false })
  await env.grader.stop()
  await env.ingestThrough(1500)
  const [t] = await queryRows<{ b: string }>(env.rt.ch, 'SELECT toUnixTimestamp(max(timestamp)) AS b FROM chain_blocks')
  chainEnd = Number(t!.b)
}, 180_000)
afterAll(async () => env?.close())

describe('caller changes', () => {
  it('a grader pass changes exactly the callers it graded, and the change log names them', async () => {
    // Tokens trading in the last minutes: calls on them are graded once their hour has passed.
    const active = (await queryRows<{ token: string }>(
      env.rt.ch,
      'SELECT token FROM swaps WHERE block_time >= toDateTime({t:UInt32}) GROUP BY token ORDER BY count() DESC, token LIMIT 6',
      { t: chainEnd - 600 },
    )).map((r) => r.token)
    expect(active.length).toBeGreaterThan(2)
    const authors = ['grd_a', 'grd_b', 'grd_c', 'grd_d']
    const posts: SocialPost[] = authors.flatMap((a, i) =>
      active.slice(i % 2, (i % 2) + 3).map((token) => ({ id: `g${postSeq++}`, author: a, posted_at: chainEnd - 300, captured_at: chainEnd - 295, text: token, links: [] })),
    )
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, posts)
    await stored('mentions', before + posts.length)
    // Their hour has not passed: the pass stores their call counts only.
    const counted = (await env.grade())!
    expect(counted.written).toBe(0)
    expect(counted.callers!.callers.sort()).toEqual(authors)

    const gradesBefore = await queryRows<{ author: string; n: string }>(env.rt.ch, 'SELECT author, count() AS n FROM call_grades GROUP BY author')
    await env.ingestThrough(3500)
    const pass = (await env.grade())!
    expect(pass.written).toBeGreaterThan(0)
    const gradesAfter = await queryRows<{ author: string; n: string }>(env.rt.ch, 'SELECT author, count() AS n FROM call_grades GROUP BY author')
    const had = new Map(gradesBefore.map((g) => [g.author, Number(g.n)]))
    const graded = gradesAfter.filter((g) => Number(g.n) > (had.get(g.author) ?? 0)).map((g) => g.author).sort()
    expect(graded.length).toBeGreaterThan(0)
    expect(pass.callers!.callers.sort()).toEqual(graded)
    expect((await changesAt(pass.callers!.seq)).caller).toEqual(graded)
    expect(pass.callers!.clusters).toEqual([])

    // A pass with nothing new changes nothing.
    const idle = (await env.grade())!
    expect(idle.callers).toMatchObject({ callers: [], clusters: [], seq: 0 })
  })

  it('a follow snapshot that forms a new mutual pair updates both accounts and nothing else', async () => {
    const snap = (account: string, following: string[]): FollowSnapshot => ({ account, observed_at: chainEnd, following, watched: false })
    // pair_a is a caller; pair_b follows nobody yet; an unrelated mutual pair exists already.
    const before = await count('mentions')
    await publish(TOPICS.socialPosts, [{ id: `f${postSeq++}`, author: 'pair_a', posted_at: chainEnd, captured_at: chainEnd + 5, text: 'no token here $NOPE_NOT_A_TOKEN', links: [] }])
    const snaps0 = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [snap('pair_a', ['pair_b', 'other_z']), snap('pair_b', []), snap('other_x', ['other_y']), snap('other_y', ['other_x'])])
    await stored('follow_snapshots', snaps0 + 4)
    await stored('mentions', before)
    const setup = (await env.grade())!
    expect(setup.callers!.clusters.sort()).toEqual(['other_x', 'other_y'])
    // Make pair_a a caller (a call on a tracked token) so its caller record carries the cluster.
    const [tok] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT address AS token FROM contract_creations ORDER BY block_number LIMIT 1')
    const m0 = await count('mentions')
    await publish(TOPICS.socialPosts, [{ id: `f${postSeq++}`, author: 'pair_a', posted_at: chainEnd, captured_at: chainEnd + 5, text: tok!.token, links: [] }])
    await stored('mentions', m0 + 1)
    expect((await env.grade())!.callers!.callers).toEqual(['pair_a'])

    const snaps1 = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [{ ...snap('pair_b', ['pair_a']), observed_at: chainEnd + 60 }])
    await stored('follow_snapshots', snaps1 + 1)
    const pass = (await env.grade())!
    expect(pass.callers!.clusters.sort()).toEqual(['pair_a', 'pair_b'])
    expect(pass.callers!.callers).toEqual(['pair_a'])
    expect(await changesAt(pass.callers!.seq)).toEqual({ caller: ['pair_a'], cluster: ['pair_a', 'pair_b'] })
    const clusters = await queryRows<{ account: string; cluster: string }>(
      env.rt.ch,
      "SELECT account, argMax(cluster, version) AS cluster FROM account_clusters WHERE account IN ('pair_a', 'pair_b', 'other_x', 'other_y') GROUP BY account ORDER BY account",
    )
    expect(clusters).toEqual([
      { account: 'other_x', cluster: 'other_x' },
      { account: 'other_y', cluster: 'other_x' },
      { account: 'pair_a', cluster: 'pair_a' },
      { account: 'pair_b', cluster: 'pair_a' },
    ])
    expect((await env.api.deps.social.caller('pair_a'))?.cluster).toBe('pair_a')

    // Breaking the pair splits it again: both accounts change back, nothing else.
    const snaps2 = await count('follow_snapshots')
    await publish(TOPICS.socialFollows, [{ ...snap('pair_b', []), observed_at: chainEnd + 120 }])
    await stored('follow_snapshots', snaps2 + 1)
    const split = (await env.grade())!
    expect(split.callers!.clusters.sort()).toEqual(['pair_a', 'pair_b'])
    expect((await env.api.deps.social.caller('pair_a'))?.cluster).toBeNull()
  })
})
