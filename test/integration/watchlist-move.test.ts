import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashKey } from '../../api/access/keys.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/** Watchlists kept in the store before migration 011 move to ClickHouse the first time they are read. */

let env: Embedded
beforeAll(async () => {
  env = await startEmbedded()
})
afterAll(async () => env?.close())

describe('watchlists from before migration 011', () => {
  it('a store-held watchlist moves into ClickHouse on first use and leaves the store', async () => {
    const issued = await env.api.app.inject({ method: 'POST', url: '/admin/keys', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }, payload: '{"plan":"signal_feed"}' })
    const { key } = issued.json() as { key: string }
    const legacy = `watchlist:${hashKey(key)}`
    const [a, b] = [`0x${'a1'.repeat(20)}`, `0x${'b2'.repeat(20)}`]
    await env.rt.store.sadd(legacy, b)
    await env.rt.store.sadd(legacy, a)

    const listed = await env.api.app.inject({ method: 'GET', url: '/watchlist', headers: { 'x-svc-key': key } })
    expect(listed.json()).toEqual({ data: { tokens: [a, b], limit: 10 } })
    expect(await env.rt.store.smembers(legacy)).toEqual([])
    // Now in ClickHouse: a removal sticks and nothing comes back from the store.
    await env.api.app.inject({ method: 'DELETE', url: `/watchlist/${a}`, headers: { 'x-svc-key': key } })
    expect((await env.api.app.inject({ method: 'GET', url: '/watchlist', headers: { 'x-svc-key': key } })).json().data.tokens).toEqual([b])
  })
})
