import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from '../../bin/runtime.ts'
import { createApiServer, type ApiServer } from '../../bin/serve-api.ts'
import { createWebhookStore, type StoredDelivery, type WebhookStore } from '../../products/alerts/webhook-store.ts'
import { addressProblem, checkWebhookUrl, type ResolvedAddress } from '../../products/alerts/webhook-url.ts'
import { loadConfig } from '../../core/config.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { createAlertDelivery } from '../../pipelines/alerts/delivery.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { alertBody } from '../../products/alerts/alert.ts'
import { TEST_ADMIN_TOKEN } from '../setup/embedded.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../setup/webhook-receiver.ts'

/**
 * Webhook targets are judged by the address they reach: an IPv6 form that carries an IPv4
 * address is judged as that address at registration, and the host is resolved and checked again
 * at each delivery, which connects only to the address it checked (DNS rebinding). The API runs
 * without the alerts role here: the delivery workers below are the only ones.
 */
const dir = tempDir()
let rt: Runtime
let api: ApiServer
let webhooks: WebhookStore
let receiver: WebhookReceiver

beforeAll(async () => {
  delete process.env.WEBHOOK_ALLOW_LOOPBACK
  rt = await createRuntime(loadConfig({ DATA_DIR: dir.path, SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'warn' }), 'test')
  // The loopback allowance is off: it is an explicit setting, for tests of delivery only.
  api = await createApiServer(rt, { pollMs: 0, alerts: { allowLoopback: false } })
  webhooks = createWebhookStore(rt.ch)
  receiver = await startWebhookReceiver()
})
afterAll(async () => {
  await api?.close()
  await rt?.close()
  await receiver?.close()
  dir.cleanup()
})

describe('webhook registration judges IPv6 forms as the IPv4 address they embed', () => {
  it('refuses mapped, translated, compatible, NAT64, 6to4 and Teredo forms of private and loopback addresses', async () => {
    const { key } = await api.deps.keys.create('signal_feed')
    const refused = [
      '[::127.0.0.1]', // IPv4-compatible loopback (the URL parser writes it [::7f00:1])
      '[::ffff:0:a00:1]', // IPv4-translated 10.0.0.1
      '[::ffff:7f00:1]', // IPv4-mapped loopback, hex form
      '[::ffff:192.168.1.1]', // IPv4-mapped, dotted form
      '[::a9fe:a9fe]', // IPv4-compatible 169.254.169.254 (cloud metadata)
      '[64:ff9b::a00:1]', // NAT64 well-known prefix, 10.0.0.1
      '[64:ff9b::7f00:1]', // NAT64 well-known prefix, loopback
      '[64:ff9b:1::a00:1]', // NAT64 local-use prefix
      '[2002:a00:1::]', // 6to4 of 10.0.0.1
      '[2002:7f00:1::1]', // 6to4 of 127.0.0.1
      '[2001:0:4136:e378:8000:63bf:f5ff:fffe]', // Teredo, client 10.0.0.1 (obfuscated)
    ]
    for (const host of refused) {
      const res = await api.app.inject({ method: 'POST', url: '/alerts/webhook', headers: { 'x-svc-key': key, 'content-type': 'application/json' }, payload: { url: `https://${host}/hook` } })
      expect(res.statusCode, host).toBe(400)
      expect(res.json().error, host).toMatchObject({ code: 'invalid_parameter', details: { parameter: 'url', reason: 'blocked_address' } })
    }
    const shown = await api.app.inject({ method: 'GET', url: '/alerts/webhook', headers: { 'x-svc-key': key } })
    expect(shown.json().data.configured).toBe(false)
  })

  it('accepts the same forms of public IPv4 addresses (the check reads the address, not the notation)', () => {
    for (const a of ['::ffff:808:808', '64:ff9b::808:808', '2002:808:808::1', '2606:4700::1111']) expect(addressProblem(a, false), a).toBeNull()
    for (const a of ['::7f00:1', '::ffff:0:a00:1', '64:ff9b:1::a00:1', '2002:a00:1::', '2001:0:4136:e378:8000:63bf:3fff:fdd2']) expect(addressProblem(a, false), a).not.toBeNull()
  })
})

describe('delivery checks the address the host resolves to then, and connects to it only', () => {
  /** A webhook to `url` (registered as the API does: through checkWebhookUrl) and a pending delivery to it. */
  async function pendingDelivery(url: string): Promise<StoredDelivery> {
    const keyHash = randomBytes(32).toString('hex')
    await webhooks.set({ keyHash, url, secret: `whsec_${randomBytes(32).toString('hex')}`, createdAt: new Date().toISOString() })
    const eventId = `test:${randomBytes(8).toString('hex')}`
    const now = new Date().toISOString()
    const d: StoredDelivery = {
      keyHash, deliveryId: randomBytes(12).toString('hex'), eventId, kind: 'test', url, status: 'pending', attempts: 0, lastCode: null, lastError: '',
      createdAt: now, updatedAt: now, body: alertBody({ id: eventId, kind: 'test', created_at: now, data: { message: url } }),
    }
    await webhooks.recordDelivery(d)
    return d
  }

  const settled = (d: StoredDelivery) =>
    until(`${d.deliveryId} settled`, async () => {
      const now = await webhooks.delivery(d.keyHash, d.deliveryId)
      return now && (now.status === 'delivered' || now.status === 'failed') ? now : undefined
    })

  async function deliverOnce(d: StoredDelivery, policy: { allowLoopback: boolean; lookup: (host: string) => Promise<ResolvedAddress[]> }) {
    const bus = createMemoryBus()
    const worker = createAlertDelivery({ bus, webhooks, store: createMemoryStore(), logger: rt.logger, metrics: rt.metrics, namespace: `rebind-${randomBytes(4).toString('hex')}`, policy, ca: receiver.cert, resumeEveryMs: 0 })
    await worker.start()
    try {
      return await settled(d)
    } finally {
      await worker.stop()
      await bus.close()
    }
  }

  it('a name that resolved public at registration and resolves to 127.0.0.1 at delivery is refused, and nothing is sent', async () => {
    const port = new URL(receiver.base).port
    let answers = 0
    // The rebinding resolver: a public address first, loopback from then on.
    const lookup = async (): Promise<ResolvedAddress[]> => (answers++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }])
    const url = `https://rebind.example:${port}/rebind`
    await expect(checkWebhookUrl(url, { allowLoopback: false, lookup })).resolves.toBeTruthy()
    const d = await pendingDelivery(url)
    const final = await deliverOnce(d, { allowLoopback: false, lookup })
    expect(final).toMatchObject({ status: 'failed', attempts: 1, lastCode: null })
    expect(final.lastError).toMatch(/resolves to 127\.0\.0\.1: loopback address/)
    expect(answers).toBe(2)
    expect(receiver.to('/rebind')).toHaveLength(0)
  })

  it('the same for a name resolving to an IPv6 form of a private address (6to4 of 10.0.0.1)', async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => [{ address: '2002:a00:1::1', family: 6 }]
    const d = await pendingDelivery('https://six-to-four.example/x')
    const final = await deliverOnce(d, { allowLoopback: false, lookup })
    expect(final).toMatchObject({ status: 'failed', attempts: 1 })
    expect(final.lastError).toMatch(/6to4 form of 10\.0\.0\.1/)
  })

  it('an allowed delivery connects to the address it checked: the name is resolved once per attempt, never again by the connection', async () => {
    let answers = 0
    // Checked answer 127.0.0.1 (loopback allowed by the explicit test setting); any later answer would be private and unreachable.
    const lookup = async (): Promise<ResolvedAddress[]> => (answers++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }])
    const d = await pendingDelivery(`https://localhost:${new URL(receiver.base).port}/checked`)
    const final = await deliverOnce(d, { allowLoopback: true, lookup })
    expect(final).toMatchObject({ status: 'delivered', attempts: 1, lastCode: 200 })
    expect(answers).toBe(1)
    expect(receiver.to('/checked')).toHaveLength(1)
  })
})
