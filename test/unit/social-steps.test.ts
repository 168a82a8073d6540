import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { BusMessage } from '../../core/bus/types.ts'
import { createChainClockStep } from '../../pipelines/process/social/chain-clock-step.ts'
import { createFollowDiffStep } from '../../pipelines/process/social/follow-diff-step.ts'
import { createMentionsStep } from '../../pipelines/process/social/mentions-step.ts'
import { createTokenDirectory } from '../../pipelines/process/social/token-directory.ts'
import type { SocialPost } from '../../pipelines/records/social.ts'
import { migratedChDB } from '../setup/chdb.ts'

const msg: BusMessage = { topic: 'social.posts', partition: 0, offset: '0', timestamp: 0, key: null, value: '' }
const TOKEN = `0x${'ab'.repeat(20)}`
const post = (posted_at: number, text: string): SocialPost => ({ id: `p${posted_at}`, author: 'alice', posted_at, captured_at: posted_at + 1, text, links: [] })

let db: Awaited<ReturnType<typeof migratedChDB>>
let ch: ClickHouseClient
beforeAll(async () => {
  db = await migratedChDB()
  ch = db.ch
  await ch.insert({ table: 'chain_blocks', format: 'JSONEachRow', values: [{ chain_id: 4663, number: 10, hash: '0x1', parent_hash: '0x0', timestamp: 1_000, log_count: 0 }] })
  await ch.insert({
    table: 'contract_creations', format: 'JSONEachRow',
    values: [{ chain_id: 4663, address: TOKEN, deployer: `0x${'cd'.repeat(20)}`, block_number: 10, tx_index: 0, tx_hash: '0x2', created_at: 1_000, symbol: 'PEPO', name: 'Pepo' }],
  })
})
afterAll(async () => db?.close())

describe('createChainClockStep()', () => {
  it('createChainClockStep() holds a post newer than the ingested chain, and lets it through once the chain stalled', async () => {
    let now = 0
    const step = createChainClockStep({ tokens: createTokenDirectory(ch), stallSeconds: 30, now: () => now })
    await step.beforeBatch!()
    expect(step.run(post(1_000, ''), msg)).toEqual({ kind: 'ok', value: post(1_000, '') })
    expect((await step.run(post(1_001, ''), msg)).kind).toBe('hold')
    now = 31_000
    expect((await step.run(post(1_001, ''), msg)).kind).toBe('ok')
  })
})

describe('createMentionsStep()', () => {
  it('createMentionsStep() turns a post into mention rows without its text, and drops a post that names no token', async () => {
    const tokens = createTokenDirectory(ch)
    await tokens.refresh()
    const step = createMentionsStep({ tokens })
    const r = step.run(post(1_000, `buying $PEPO now, ${TOKEN}`), msg)
    expect(r).toEqual({
      kind: 'ok',
      value: [{ post_id: 'p1000', token: TOKEN, symbol: 'PEPO', via: expect.any(String), ambiguous: 0, author: 'alice', posted_at: 1_000, captured_at: 1_001 }],
    })
    expect(JSON.stringify(r)).not.toContain('buying')
    expect(step.run(post(1_000, 'gm'), msg)).toEqual({ kind: 'drop', reason: 'no_reference' })
  })
})

describe('createFollowDiffStep()', () => {
  it('createFollowDiffStep() diffs a snapshot against the stored previous one, then against the one before it in the batch', async () => {
    await ch.insert({ table: 'follow_snapshots', format: 'JSONEachRow', values: [{ account: 'bob', observed_at: 100, following: ['a', 'b'], watched: 1 }] })
    const step = createFollowDiffStep({ ch })
    const first = await step.run({ account: 'bob', observed_at: 200, following: ['b', 'c', 'c'], watched: true }, msg)
    expect(first.kind).toBe('ok')
    if (first.kind !== 'ok') return
    expect(first.value.events.map((e) => [e.event, e.followed, e.previous_poll])).toEqual([['follow', 'c', 100], ['unfollow', 'a', 100]])
    expect(first.value.snapshot).toEqual({ account: 'bob', observed_at: 200, following: ['b', 'c'], watched: 1 })
    const second = await step.run({ account: 'bob', observed_at: 300, following: ['c'], watched: true }, msg)
    expect(second.kind === 'ok' && second.value.events.map((e) => [e.event, e.followed, e.previous_poll])).toEqual([['unfollow', 'b', 200]])
  })
})
