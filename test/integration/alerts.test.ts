import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publishAlert } from '../../pipelines/alerts/publish.ts'
import { verifySignature } from '../../pipelines/alerts/sign.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../setup/webhook-receiver.ts'

let env: Embedded
let receiver: WebhookReceiver
let hookUrl: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  hookUrl = `${receiver.base}/hook`
  env = await startEmbedded({}, { alerts: { allowLoopback: true, ca: receiver.cert, backoffMs: 100, producerIntervalMs: 3_600_000 } })
})
afterAll(async () => {
  await env?.close()
  await receiver?.close()
})

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) {
  const res = await env.api.app.inject({ method, url, headers: payload ? { ...headers, 'content-type': 'application/json' } : headers, payload: payload ? JSON.stringify(payload) : undefined })
  return { status: res.statusCode, body: res.body, json: () => res.json() }
}

const issue = async (plan: string) => {
  const res = await call('POST', '/admin/keys', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }, { plan })
  expect(res.status).toBe(200)
  return (res.json() as { key: string }).key
}


describe('/alerts/webhook', () => {
  it('POST /alerts/webhook refuses http, private, link-local and CGNAT targets with 400 and the error body', async () => {
    const h = { 'x-svc-key': await issue('desk') }
    for (const [url, reason] of [
      ['http://example.com/x', 'not_https'],
      ['https://10.0.0.1/x', 'blocked_address'],
      ['https://192.168.1.5/x', 'blocked_address'],
      ['https://169.254.169.254/latest', 'blocked_address'],
      ['https://100.64.0.1/x', 'blocked_address'],
      ['https://[fd00::1]/x', 'blocked_address'],
      ['https://[::ffff:10.0.0.1]/x', 'blocked_address'],
      ['https://0.0.0.0/x', 'blocked_address'],
      ['https://user:pw@example.com/x', 'credentials_in_url'],
    ] as const) {
      const res = await call('POST', '/alerts/webhook', h, { url })
      expect(res.status, url).toBe(400)
      // A URL that is not https is refused by the documented schema (pattern ^https://), before the host checks that name a reason.
      expect(res.json().error, url).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'url', ...(reason === 'not_https' ? {} : { reason }) } })
    }
    expect((await call('POST', '/alerts/webhook', h, { url: 'not a url' })).status).toBe(400)
    expect((await call('GET', '/alerts/webhook', h)).json().data.configured).toBe(false)
  })

  it('the /alerts endpoints need a key whose plan has the webhook feature', async () => {
    expect((await call('GET', '/alerts/webhook')).json().error.code).toBe('missing_key')
    const res = await call('POST', '/alerts/webhook', { 'x-svc-key': await issue('founders') }, { url: hookUrl })
    expect(res.status).toBe(403)
  })

  it('the secret is shown once; POST /alerts/test delivers a signed test event, retried after two 500s, then delivered', async () => {
    const h = { 'x-svc-key': await issue('signal_feed') }
    const created = await call('POST', '/alerts/webhook', h, { url: hookUrl })
    expect(created.status).toBe(200)
    const { secret, url } = created.json().data
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/)
    expect(url).toBe(hookUrl)
    const shown = await call('GET', '/alerts/webhook', h)
    expect(shown.json().data).toMatchObject({ configured: true, url: hookUrl, retry: { max_attempts: 6 } })
    expect(shown.body).not.toContain(secret)

    receiver.received.length = 0
    receiver.script('/hook', [500, 500])
    const fired = await call('POST', '/alerts/test', h)
    expect(fired.status).toBe(200)
    const eventId = fired.json().data.event_id as string
    const delivery = await until('delivered', async () => {
      const d = (await call('GET', '/alerts/webhook', h)).json().data.deliveries.find((x: { event_id: string }) => x.event_id === eventId)
      return d?.status === 'delivered' ? d : undefined
    })
    expect(delivery).toMatchObject({ kind: 'test', status: 'delivered', attempts: 3, last_status_code: 200, url: hookUrl })
    expect(receiver.received).toHaveLength(3)
    const now = Math.floor(Date.now() / 1000)
    for (const r of receiver.received) {
      expect(verifySignature(secret, r.body, String(r.headers['x-svc-signature']), now)).toBe(true)
      expect(verifySignature('whsec_wrong', r.body, String(r.headers['x-svc-signature']), now)).toBe(false)
      const body = JSON.parse(r.body)
      expect(Object.keys(body).sort()).toEqual(['created_at', 'data', 'id', 'kind'])
      expect(body).toMatchObject({ id: eventId, kind: 'test' })
    }
    // A second POST replaces the webhook with a new secret.
    const again = (await call('POST', '/alerts/webhook', h, { url: hookUrl })).json().data.secret
    expect(again).not.toBe(secret)
  })

  it('an alert any producer publishes on the bus reaches every webhook; a receiver that keeps failing ends failed', async () => {
    const a = { 'x-svc-key': await issue('desk') }
    const b = { 'x-svc-key': await issue('desk') }
    // Paths of their own: the first test's webhook (on /hook) receives this alert too.
    const secretA = (await call('POST', '/alerts/webhook', a, { url: `${receiver.base}/a` })).json().data.secret
    await call('POST', '/alerts/webhook', b, { url: `${receiver.base}/b` })
    receiver.received.length = 0
    const id = `proven_deployer_launch:0x${'11'.repeat(20)}:2026-11-21`
    await publishAlert(env.rt.bus, { id, kind: 'proven_deployer_launch', created_at: new Date().toISOString(), data: { token: `0x${'22'.repeat(20)}` } })
    for (const h of [a, b]) {
      await until('both delivered', async () => {
        const d = (await call('GET', '/alerts/webhook', h)).json().data.deliveries.find((x: { event_id: string }) => x.event_id === id)
        return d?.status === 'delivered' ? d : undefined
      })
    }
    const [toA] = receiver.to('/a')
    expect(verifySignature(secretA, toA!.body, String(toA!.headers['x-svc-signature']), Math.floor(Date.now() / 1000))).toBe(true)
    expect(JSON.parse(toA!.body)).toMatchObject({ id, kind: 'proven_deployer_launch', data: { token: `0x${'22'.repeat(20)}` } })
    expect(receiver.to('/b')).toHaveLength(1)

    // Six 500s: the delivery gives up after the sixth attempt.
    receiver.script('/a', [500, 500, 500, 500, 500, 500])
    const fired = (await call('POST', '/alerts/test', a)).json().data.event_id
    const failed = await until('failed', async () => {
      const d = (await call('GET', '/alerts/webhook', a)).json().data.deliveries.find((x: { event_id: string }) => x.event_id === fired)
      return d?.status === 'failed' ? d : undefined
    }, 30_000)
    expect(failed).toMatchObject({ attempts: 6, last_status_code: 500, last_error: 'HTTP 500' })
  })

  it('DELETE /alerts/webhook removes it; POST /alerts/test then answers 409', async () => {
    const h = { 'x-svc-key': await issue('desk') }
    await call('POST', '/alerts/webhook', h, { url: hookUrl })
    expect((await call('DELETE', '/alerts/webhook', h)).json()).toEqual({ data: { removed: true } })
    expect((await call('GET', '/alerts/webhook', h)).json().data).toMatchObject({ configured: false, url: null })
    expect((await call('DELETE', '/alerts/webhook', h)).json()).toEqual({ data: { removed: false } })
    const res = await call('POST', '/alerts/test', h)
    expect(res.status).toBe(409)
    expect(res.json().error.code).toBe('conflict')
  })
})

describe('the alert producers', () => {
  const passes = (part: 'launches' | 'calls') => env.rt.metrics.alertProducerPasses.get({ part })

  it('look at the launches when a batch is served and at the calls when social rows land, and at nothing while nothing changes', { timeout: 60_000 }, async () => {
    // Their safety-net timer is an hour here: every pass below was woken by a change.
    await until('the first pass', async () => ((await passes('launches')) >= 1 && (await passes('calls')) >= 1 ? true : undefined), 10_000)
    const quiet = { launches: await passes('launches'), calls: await passes('calls') }
    await new Promise((r) => setTimeout(r, 3_000))
    expect({ launches: await passes('launches'), calls: await passes('calls') }).toEqual(quiet)

    await env.ingestThrough(env.processor.watermark() + 3)
    await until('a launches pass after the served batch', async () => ((await passes('launches')) > quiet.launches ? true : undefined), 10_000)

    // What the social processor does after it inserted rows (in one process).
    env.api.watermarks.socialAdvanced(1)
    await until('a calls pass after social rows', async () => ((await passes('calls')) > quiet.calls ? true : undefined), 10_000)
  })
})
