import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashKey } from '../../api/access/keys.ts'
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
