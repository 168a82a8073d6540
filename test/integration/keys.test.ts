import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashKey } from '../../api/access/keys.ts'
import { createAccessGate } from '../../api/access/gate.ts'
import type { AnyEndpoint } from '../../core/endpoint/types.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { responseBytes } from '../../core/serving/rendered-json.ts'
import { tokenEndpoint } from '../../products/token/token-endpoint.ts'
import { statsEndpoint } from '../../products/token/stats-endpoint.ts'
import { listWatchlistEndpoint } from '../../products/watchlist/watchlist-endpoints.ts'
import { callersEndpoint } from '../../products/social/callers-endpoint.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { tempDir } from '../setup/temp.ts'

let env: Embedded
const token = `0x${'ab'.repeat(20)}`

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(50)
})
afterAll(async () => env?.close())

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) {
  const res = await env.api.app.inject({ method, url, headers: payload ? { ...headers, 'content-type': 'application/json' } : headers, payload: payload ? JSON.stringify(payload) : undefined })
  return { status: res.statusCode, json: () => res.json() }
}

const issue = async (plan: string) => {
  const res = await call('POST', '/admin/keys', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, { plan })
  expect(res.status).toBe(200)
  return res.json() as { key: string; prefix: string; plan: string }
}

describe('subscription keys', () => {
  it('POST /admin/keys issues a svc_live_ key once and stores only its hash', async () => {
    const { key, prefix, plan } = await issue('signal_feed')
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{32}$/)
    expect(prefix).toBe(key.slice(0, 13))
    expect(plan).toBe('signal_feed')
    const stored = await queryRows<Record<string, unknown>>(env.rt.ch, 'SELECT * FROM api_keys')
    expect(JSON.stringify(stored)).not.toContain(key)
    expect(stored.map((r) => r.key_hash)).toContain(hashKey(key))
    expect((await call('POST', '/admin/keys', {}, { plan: 'desk' })).status).toBe(401)
    expect((await call('POST', '/admin/keys', { authorization: 'Bearer wrong-token-0000000000' }, { plan: 'desk' })).status).toBe(403)
    expect((await call('POST', '/admin/keys', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, { plan: 'gold' })).json().error).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'plan' } })
  })

  it('a key runs paid endpoints without payment, by x-svc-key or Bearer; a bad key is 401', async () => {
    const { key } = await issue('founders')
    expect((await call('GET', `/token/${token}`)).status).toBe(402)
    expect((await call('GET', `/token/${token}`, { 'x-svc-key': key })).status).toBe(200)
    expect((await call('GET', `/token/${token}`, { authorization: `Bearer ${key}` })).status).toBe(200)
    const bad = await call('GET', `/token/${token}`, { 'x-svc-key': `svc_live_${'x'.repeat(32)}` })
    expect(bad.status).toBe(401)
    expect(bad.json().error.code).toBe('invalid_key')
    expect((await call('GET', `/token/${token}?key=${key}`)).json().error.code).toBe('key_in_url')
  })

  it('key endpoints answer 401 without a key and 403 when the plan lacks the feature', async () => {
    expect((await call('GET', '/watchlist')).json().error.code).toBe('missing_key')
    const { key } = await issue('founders')
    const res = await call('GET', '/watchlist', { 'x-svc-key': key })
    expect(res.status).toBe(403)
    expect(res.json().error).toMatchObject({ code: 'forbidden', details: { plan: 'founders', feature: 'watchlist' } })
  })

  it('a revoked key stops working at once in the process that revoked it, though it was just verified', async () => {
    const { key, prefix } = await issue('desk')
    // Twice: the second call is answered from the keys verified moments ago (by the key as presented).
    expect((await call('GET', `/token/${token}`, { 'x-svc-key': key })).status).toBe(200)
    expect((await call('GET', `/token/${token}`, { 'x-svc-key': key })).status).toBe(200)
    expect((await call('DELETE', `/admin/keys/${prefix}`, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })).json()).toEqual({ revoked: 1 })
    expect((await call('GET', `/token/${token}`, { 'x-svc-key': key })).status).toBe(401)
    expect((await call('GET', `/token/${token}`, { authorization: `Bearer ${key}` })).status).toBe(401)
  })
})

describe('watchlist', () => {
  it('POST/GET/DELETE /watchlist keep at most 10 tokens per key; the 11th is 409, a malformed token 400', async () => {
    const { key } = await issue('signal_feed')
    const h = { 'x-svc-key': key }
    const tokens = Array.from({ length: 11 }, (_, i) => `0x${String(i).padStart(2, '0').repeat(20)}`)
    for (const t of tokens.slice(0, 10)) expect((await call('POST', `/watchlist/${t.toUpperCase().replace('0X', '0x')}`, h)).status).toBe(200)
    const eleventh = await call('POST', `/watchlist/${tokens[10]}`, h)
    expect(eleventh.status).toBe(409)
    expect(eleventh.json().error.code).toBe('conflict')
    expect((await call('POST', `/watchlist/${tokens[0]}`, h)).status).toBe(200) // already watched: not an 11th
    expect((await call('GET', '/watchlist', h)).json().data.tokens).toEqual([...tokens.slice(0, 10)].sort())
    expect((await call('POST', '/watchlist/0x123', h)).json().error.code).toBe('invalid_address')
    expect((await call('DELETE', `/watchlist/${tokens[3]}`, h)).json().data.tokens).toHaveLength(9)
    expect((await call('POST', `/watchlist/${tokens[10]}`, h)).status).toBe(200)
    // Another key has its own list.
    const other = await issue('signal_feed')
    expect((await call('GET', '/watchlist', { 'x-svc-key': other.key })).json().data.tokens).toEqual([])
  })
})

describe('svc keys', () => {
  it('svc keys create, list and revoke work from the command line', () => {
    const dir = tempDir()
    const env2 = { ...process.env, DATA_DIR: dir.path, LOG_LEVEL: 'warn' }
    try {
      const created = spawnSync(process.execPath, ['bin/svc.js', 'keys', 'create', 'desk'], { env: env2, encoding: 'utf8', timeout: 60_000 })
      expect(created.status, created.stderr).toBe(0)
      const { key, prefix } = JSON.parse(created.stdout.trim().split('\n').pop()!)
      expect(key).toMatch(/^svc_live_/)
      const listed = spawnSync(process.execPath, ['bin/svc.js', 'keys', 'list'], { env: env2, encoding: 'utf8', timeout: 60_000 })
      expect(listed.stdout).toContain(prefix)
      expect(listed.stdout).not.toContain(key)
      const revoked = spawnSync(process.execPath, ['bin/svc.js', 'keys', 'revoke', prefix], { env: env2, encoding: 'utf8', timeout: 60_000 })
      expect(JSON.parse(revoked.stdout.trim())).toEqual({ revoked: 1 })
    } finally {
      dir.cleanup()
    }
  })
})

describe('the busy path: decided and answered from memory, without a promise', () => {
  const asEndpoint = (e: unknown) => e as AnyEndpoint
  const req = (headers: Record<string, string>) => ({ ip: '9.9.9.9', headers })

  it('a key verified moments ago is admitted at once with the grant admit gives; the operator, a plan without the feature, a rate cap, a connection token and a revoked key are left to admit', async () => {
    const gate = createAccessGate({ adminToken: TEST_ADMIN_TOKEN, store: env.rt.store, keys: env.api.deps.keys })
    const paid = asEndpoint(tokenEndpoint)
    const { key, prefix } = await issue('founders')
    const byKey = req({ 'x-svc-key': key })
    expect(gate.admitNow(paid, {}, byKey)).toBeUndefined() // not verified yet: admit looks it up
    const admitted = await gate.admit(paid, {}, byKey)
    expect(admitted).toMatchObject({ via: 'key', price: null, keyHash: hashKey(key), plan: 'founders' })
    expect(gate.admitNow(paid, {}, byKey)).toBe(admitted)
    expect(gate.admitNow(paid, {}, req({ authorization: `Bearer ${key}` }))).toBe(admitted)

    const watchlist = asEndpoint(listWatchlistEndpoint)
    expect(gate.admitNow(watchlist, {}, byKey)).toBeUndefined()
    await expect(gate.admit(watchlist, {}, byKey)).rejects.toMatchObject({ code: 'forbidden' })

    const operator = req({ authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-svc-key': key })
    expect(gate.admitNow(paid, {}, operator)).toBeUndefined()
    expect((await gate.admit(paid, {}, operator)).via).toBe('admin')

    expect(gate.admitNow(asEndpoint(callersEndpoint), {}, req({}))).toBeUndefined()
    expect(gate.admitNow(asEndpoint(statsEndpoint), {}, req({}))).toMatchObject({ via: 'free', price: null })
    expect(gate.admitNow(paid, {}, req({ 'x-svc-key': `svc_conn_${'a'.repeat(40)}` }))).toBeUndefined()

    expect((await call('DELETE', `/admin/keys/${prefix}`, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })).json()).toEqual({ revoked: 1 })
    expect(gate.admitNow(paid, {}, byKey)).toBeUndefined()
    await expect(gate.admit(paid, {}, byKey)).rejects.toMatchObject({ code: 'invalid_key' })
  })

  it('a kept /token answer is given at once and equals the loaded one; once the watermark moves, it waits for the serving state to catch up', async () => {
    const [real] = await queryRows<{ token: string }>(env.rt.ch, "SELECT token FROM token_state WHERE created AND deployer != '' ORDER BY token LIMIT 1")
    expect(real).toBeDefined()
    const unknown = `0x${randomBytes(20).toString('hex')}`
    const deps = env.api.deps as ApiDeps
    // As a route calls it: the kept answer when memory holds it, else the handler's load.
    const handle = (address: string) => {
      const ctx = { params: { address }, query: {}, body: undefined, deps, request: req({}), grant: { via: 'free', price: null } as const }
      return tokenEndpoint.kept!(ctx) ?? tokenEndpoint.handler!(ctx)
    }
    const bodyOf = (answer: unknown) => JSON.parse(responseBytes(answer).toString('utf8'))
    // Never asked before: loaded through the promise, then kept and given at once.
    const asked = handle(unknown)
    expect(asked).toBeInstanceOf(Promise)
    const answered = await asked
    expect(bodyOf(handle(unknown))).toEqual(bodyOf(answered))
    expect(handle(unknown)).not.toBeInstanceOf(Promise)
    // A token with a deployer: its record and its deployer's kept, given at once.
    const loaded = await handle(real!.token)
    const kept = handle(real!.token)
    expect(kept).not.toBeInstanceOf(Promise)
    expect(bodyOf(kept)).toEqual(bodyOf(loaded))
    expect(bodyOf(handle(real!.token)).data).toMatchObject({ found: true, token: real!.token })
    expect(bodyOf(handle(unknown)).data).toMatchObject({ found: false })

    // Over HTTP, the answer given at once is the same bytes a call that loads gets.
    const { key } = await issue('desk')
    const viaHttp = () => env.api.app.inject({ method: 'GET', url: `/token/${real!.token}`, headers: { 'x-svc-key': key } })
    const looked = await viaHttp()
    const again = await viaHttp()
    expect(again.statusCode).toBe(200)
    expect(again.body).toBe(looked.body)

    // The moment a batch advances the watermark (told synchronously), a kept answer is given
    // only at that batch: its push applied (with the advance, by whoever asked first), or else
    // not given, and the answer waits for the serving state to catch up.
    const through = (bodyOf(handle(unknown)) as { measured_through_block: number }).measured_through_block
    const atAdvance: Array<{ block: number; kept: unknown; answer: unknown }> = []
    const stop = env.api.watermarks.onAdvance((source) => {
      if (source === 4663) atAdvance.push({ block: env.api.watermarks.get(4663)!, kept: deps.tokens.keptToken(unknown), answer: handle(unknown) })
    })
    await env.ingestThrough(through + 10)
    stop()
    expect(atAdvance.length).toBeGreaterThan(0)
    for (const { block, kept, answer } of atAdvance) {
      expect(answer instanceof Promise).toBe(kept === undefined)
      expect(bodyOf(await answer).measured_through_block).toBe(block)
    }
    expect(atAdvance.at(-1)!.block).toBe(through + 10)
    expect(handle(unknown)).not.toBeInstanceOf(Promise)
  })
})
