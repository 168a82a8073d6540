import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { MAX_ATTEMPTS } from '../../products/alerts/alert-retry.ts'
import { claimKey, createAlertDelivery, type AlertDelivery } from '../../pipelines/alerts/delivery.ts'
import { verifySignature } from '../../pipelines/alerts/sign.ts'
import { createWebhookStore, type StoredDelivery, type WebhookStore } from '../../products/alerts/webhook-store.ts'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createRedisStore } from '../../core/store/redis-store.ts'
import type { Store } from '../../core/store/types.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { namespaced, TOPICS } from '../../core/bus/topics.ts'
import type { Bus } from '../../core/bus/types.ts'
import { alertBody } from '../../products/alerts/alert.ts'
import { migrate } from '../../sql/migrate.ts'
import { requireRedisUrl } from '../setup/services.ts'
import { freePort, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../setup/webhook-receiver.ts'

let receiver: WebhookReceiver
beforeAll(async () => {
  receiver = await startWebhookReceiver()
})
afterAll(async () => receiver?.close())


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('alert delivery resumed from the store (one chDB, the shared Redis store)', () => {
  const dir = tempDir()
  const logger = createLogger('warn', 'svc-test')
  let ch: ClickHouseClient
  let webhooks: WebhookStore
  let store: Store
  let bus: Bus
  const workers: AlertDelivery[] = []

  beforeAll(async () => {
    ch = await createClickHouse({ DATA_DIR: dir.path } as never)
    await migrate(ch)
    webhooks = createWebhookStore(ch)
    store = createRedisStore(requireRedisUrl())
    bus = createMemoryBus()
  })
  // Each test's workers stop with it, so that none resumes the next test's deliveries.
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop()
  })
  afterAll(async () => {
    await bus?.close()
    await store?.close()
    await ch?.close()
    dir.cleanup()
  })

  const worker = (opts: { resumeEveryMs?: number; backoffMs?: number } = {}) => {
    const w = createAlertDelivery({ bus, webhooks, store, logger, metrics: createMetrics(), namespace: 'resume-test', policy: { allowLoopback: true }, ca: receiver.cert, backoffMs: 300, ...opts })
    workers.push(w)
    return w
  }

  /** A webhook on `path` and a delivery to it left by a worker that stopped, as the store holds it. */
  async function leftBehind(path: string, d: Partial<StoredDelivery>): Promise<{ delivery: StoredDelivery; secret: string }> {
    const keyHash = randomBytes(32).toString('hex')
    const secret = `whsec_${randomBytes(32).toString('hex')}`
    const url = `${receiver.base}${path}`
    await webhooks.set({ keyHash, url, secret, createdAt: new Date().toISOString() })
    const eventId = `test:${randomBytes(8).toString('hex')}`
    const body = alertBody({ id: eventId, kind: 'test', created_at: new Date().toISOString(), data: { message: path } })
    const delivery: StoredDelivery = {
      keyHash, deliveryId: randomBytes(12).toString('hex'), eventId, kind: 'test', url, status: 'retrying', attempts: 1,
      lastCode: 500, lastError: 'HTTP 500', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), body, ...d,
    }
    await webhooks.recordDelivery(delivery)
    return { delivery, secret }
  }

  const settled = (d: StoredDelivery) =>
    until(`${d.deliveryId} settled`, async () => {
      const now = await webhooks.delivery(d.keyHash, d.deliveryId)
      return now && (now.status === 'delivered' || now.status === 'failed') ? now : undefined
    })

  it('unfinishedDeliveries() lists the latest version of each pending or retrying delivery, across keys', async () => {
    const done = await leftBehind('/list-done', { status: 'pending', attempts: 0 })
    await webhooks.recordDelivery({ ...done.delivery, status: 'delivered', attempts: 1, lastCode: 200 })
    const pending = await leftBehind('/list-pending', { status: 'pending', attempts: 0 })
    const retrying = await leftBehind('/list-retrying', { status: 'retrying', attempts: 3 })
    const failed = await leftBehind('/list-failed', { status: 'retrying', attempts: 2 })
    await webhooks.recordDelivery({ ...failed.delivery, status: 'failed', attempts: 3 })
    // Back to retrying after a newer version: only the latest counts.
    const back = await leftBehind('/list-back', { status: 'delivered', attempts: 2 })
    await webhooks.recordDelivery({ ...back.delivery, status: 'retrying', attempts: 3 })

    const mine = new Set([done, pending, retrying, failed, back].map((x) => x.delivery.deliveryId))
    const listed = (await webhooks.unfinishedDeliveries(1_000)).filter((d) => mine.has(d.deliveryId))
    expect(listed.map((d) => d.deliveryId).sort()).toEqual([pending.delivery.deliveryId, retrying.delivery.deliveryId, back.delivery.deliveryId].sort())
    expect(listed.find((d) => d.deliveryId === retrying.delivery.deliveryId)).toEqual(retrying.delivery)
    expect(listed.find((d) => d.deliveryId === back.delivery.deliveryId)?.attempts).toBe(3)
  })

  it('start() of two workers at once resumes a retrying delivery at updatedAt plus its backoff, signed, sent once, attempts counted on', async () => {
    const { delivery, secret } = await leftBehind('/resume', { status: 'retrying', attempts: 2, updatedAt: new Date().toISOString() })
    // Attempt 3 is due 300 ms * 2^(2-1) = 600 ms after the recorded attempt 2.
    const due = Date.parse(delivery.updatedAt) + 600
    await Promise.all([worker({ resumeEveryMs: 100 }).start(), worker({ resumeEveryMs: 100 }).start()])
    const final = await settled(delivery)
    expect(final).toMatchObject({ status: 'delivered', attempts: 3, lastCode: 200, lastError: '', body: delivery.body })
    // Sweeps every 100 ms on both workers must not send it again once it is delivered.
    await sleep(1_500)
    const got = receiver.to('/resume')
    expect(got).toHaveLength(1)
    expect(got[0]!.at).toBeGreaterThanOrEqual(due - 20)
    expect(got[0]!.body).toBe(delivery.body)
    expect(got[0]!.headers['x-svc-event-id']).toBe(delivery.eventId)
    const signature = String(got[0]!.headers['x-svc-signature'])
    expect(verifySignature(secret, got[0]!.body, signature, Math.floor(Date.now() / 1000))).toBe(true)
    expect(verifySignature('whsec_wrong', got[0]!.body, signature, Math.floor(Date.now() / 1000))).toBe(false)
  })

  it('a resumed delivery that fails again retries with the attempt limit counted across the restart, then ends failed', async () => {
    receiver.script('/resume-fails', [500, 500, 500])
    const { delivery } = await leftBehind('/resume-fails', { status: 'retrying', attempts: MAX_ATTEMPTS - 2, updatedAt: new Date(Date.now() - 60_000).toISOString() })
    await worker({ backoffMs: 50 }).start()
    const final = await settled(delivery)
    expect(final).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastCode: 500, lastError: 'HTTP 500' })
    await sleep(500)
    expect(receiver.to('/resume-fails')).toHaveLength(2)
  })

  it('start() does not resume a delivery already at MAX_ATTEMPTS, nor one recorded without its body: both end failed, nothing is sent', async () => {
    const spent = await leftBehind('/spent', { status: 'retrying', attempts: MAX_ATTEMPTS, updatedAt: new Date(Date.now() - 60_000).toISOString() })
    const bodiless = await leftBehind('/bodiless', { status: 'pending', attempts: 0, body: '' })
    await worker().start()
    expect(await settled(spent.delivery)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, lastCode: 500, lastError: 'HTTP 500' })
    expect(await settled(bodiless.delivery)).toMatchObject({ status: 'failed', attempts: 0, lastError: expect.stringContaining('migration 009') })
    await sleep(500)
    expect(receiver.to('/spent')).toHaveLength(0)
    expect(receiver.to('/bodiless')).toHaveLength(0)
    expect((await webhooks.unfinishedDeliveries(1_000)).map((d) => d.deliveryId)).not.toContain(spent.delivery.deliveryId)
  })

  it('a batch of alerts reads the webhooks once for the batch, not once per alert: each alert still reaches every webhook', async () => {
    // Two webhooks (their left deliveries already delivered: nothing to resume).
    await Promise.all(['/batch-a', '/batch-b'].map((path) => leftBehind(path, { status: 'delivered', attempts: 1, lastCode: 200 })))
    // The real store, its reads of the webhook list counted.
    let lists = 0
    const counted: WebhookStore = { ...webhooks, list: () => (lists++, webhooks.list()) }
    const w = createAlertDelivery({ bus, webhooks: counted, store, logger, metrics: createMetrics(), namespace: 'batch-test', policy: { allowLoopback: true }, ca: receiver.cert })
    workers.push(w)
    await w.start()
    const events = Array.from({ length: 40 }, (_, i) => ({ id: `batch:${randomBytes(6).toString('hex')}:${i}`, kind: 'test', created_at: new Date().toISOString(), data: { message: String(i) } }))
    await bus.publish(namespaced('batch-test', TOPICS.alerts), events.map((e) => ({ key: e.kind, value: JSON.stringify(e) })))
    await until('every alert delivered to both webhooks', async () => (receiver.to('/batch-a').length >= 40 && receiver.to('/batch-b').length >= 40) || undefined)
    for (const path of ['/batch-a', '/batch-b']) expect(new Set(receiver.to(path).map((r) => r.headers['x-svc-event-id'])).size).toBe(40)
    // One batch (or a few, as the bus hands them out): fewer reads than alerts by far.
    expect(lists).toBeGreaterThanOrEqual(1)
    expect(lists).toBeLessThanOrEqual(5)
  })

  it('an attempt claimed by a process that died is made once its claim expires', async () => {
    const { delivery } = await leftBehind('/orphan', { status: 'retrying', attempts: 1, updatedAt: new Date(Date.now() - 60_000).toISOString() })
    // The claim a crashed claimer left: it blocks this attempt for 1.5 s, not for ever.
    const claimedAt = Date.now()
    expect(await store.setIfAbsent(claimKey(delivery.deliveryId, 1), 'crashed', 1_500)).toBe(true)
    await worker({ resumeEveryMs: 200 }).start()
    await sleep(700)
    expect(receiver.to('/orphan')).toHaveLength(0)
    expect(await settled(delivery)).toMatchObject({ status: 'delivered', attempts: 2 })
    expect(receiver.to('/orphan')).toHaveLength(1)
    expect(receiver.to('/orphan')[0]!.at).toBeGreaterThanOrEqual(claimedAt + 1_500)
  })
})

describe('svc start restarted while a delivery is retrying', () => {
  const ADMIN = 'alerts-resume-admin-token-0123'
  const dataDir = tempDir()
  let api: SvcServer | undefined

  afterAll(async () => {
    await api?.stop()
    dataDir.cleanup()
  })

  /**
   * `svc start` (the API and the alerts role in one process; no simulator, no payments chain) on
   * the one data dir, the shared Redis, the in-process bus; loopback webhooks trusted through the test CA.
   */
  const start = async () =>
    startSvcServer(['start'], await freePort(), {
      DATA_DIR: dataDir.path, REDIS_URL: requireRedisUrl(), KAFKA_BROKERS: '', SVC_ADMIN_TOKEN: ADMIN, SIMULATOR: 'off', X402_LOCAL_CHAIN: 'off',
      LOG_LEVEL: 'warn', WEBHOOK_ALLOW_LOOPBACK: 'on', NODE_EXTRA_CA_CERTS: receiver.certPath,
    })

  /** No clean stop: SIGKILL, as a crash. */
  const kill = (child: SvcServer['child']) =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.kill('SIGKILL')
    })

  async function call(method: string, path: string, headers: Record<string, string>, body?: object) {
    const res = await fetch(`${api!.base}${path}`, { method, headers: body ? { ...headers, 'content-type': 'application/json' } : headers, body: body ? JSON.stringify(body) : undefined })
    return { status: res.status, json: (await res.json()) as { key?: string; data: Record<string, unknown> & { deliveries: Array<Record<string, unknown>> } } }
  }

  it('a delivery retrying when svc start is killed is resumed by the restarted alerts role: delivered once, signed, attempts counted across the restart', { timeout: 180_000 }, async () => {
    api = await start()
    const issued = await call('POST', '/admin/keys', { authorization: `Bearer ${ADMIN}` }, { plan: 'signal_feed' })
    expect(issued.status).toBe(200)
    const h = { 'x-svc-key': issued.json.key! }
    const created = await call('POST', '/alerts/webhook', h, { url: `${receiver.base}/restart` })
    expect(created.status).toBe(200)
    const secret = created.json.data.secret as string
    // Three failures (retries wait 1, 2, 4 s), then 200: the fourth attempt delivers.
    receiver.script('/restart', [500, 500, 500])
    const fired = await call('POST', '/alerts/test', h)
    const eventId = fired.json.data.event_id as string
    const find = async () => (await call('GET', '/alerts/webhook', h)).json.data.deliveries.find((d) => d.event_id === eventId)

    // Killed (no clean stop) during the 2 s wait after the second attempt.
    const before = await until('two attempts recorded', async () => {
      const d = await find()
      return d?.status === 'retrying' && Number(d.attempts) >= 2 ? d : undefined
    })
    await kill(api.child)
    const sentBefore = receiver.to('/restart').length
    expect(sentBefore).toBe(Number(before.attempts))
    expect(sentBefore).toBeLessThan(4)

    api = await start()
    const delivered = await until('delivered after the restart', async () => {
      const d = await find()
      return d?.status === 'delivered' ? d : undefined
    }, 60_000)
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 4, last_status_code: 200 })
    await sleep(2_500)
    const got = receiver.to('/restart')
    expect(got).toHaveLength(4)
    const now = Math.floor(Date.now() / 1000)
    for (const r of got) {
      expect(verifySignature(secret, r.body, String(r.headers['x-svc-signature']), now)).toBe(true)
      expect(JSON.parse(r.body)).toMatchObject({ id: eventId, kind: 'test' })
      expect(r.body).toBe(got[0]!.body)
    }
  })
})
