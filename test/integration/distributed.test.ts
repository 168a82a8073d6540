import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { followed4663 } from '../../bin/follow.ts'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { loadConfig } from '../../core/config.ts'
import { startTestEngine } from '../setup/engine.ts'
import { requireKafkaBrokers, requireRedisUrl } from '../setup/services.ts'
import { STORED_TOTALS, uninterruptedTotals } from '../setup/sim-counts.ts'
import { freePort, runSvc, spawnSvc, startSvcServer, type SvcChild } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'
import { startWebhookReceiver } from '../setup/webhook-receiver.ts'

/**
 * The distributed mode as docs/operators.md runs it (issue 22): Kafka and Redis from infra/, the shared
 * engine (`svc engine`), and each role its own process: `svc sim`, `svc pipeline chain-4663`,
 * `svc api`, `svc pipeline alerts`, `svc pipeline scans`. The API serves what the pipeline
 * ingests; the pipeline is stopped mid-stream and started again, and the totals equal an
 * uninterrupted run, volume to the wei; a structure scan requested over the API completes; a
 * test alert is delivered to its webhook once.
 */
const BLOCKS = 1_500
const ADMIN = 'distributed-admin-token-0123456789'

const cleanups: Array<() => Promise<unknown> | unknown> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
}, 120_000)

describe('the distributed mode: every role its own process on Kafka, Redis and the shared engine', () => {
  it('serves what the pipeline ingests, survives a pipeline restart with exact totals, runs a requested scan and delivers an alert once', { timeout: 420_000 }, async () => {
    const engineDir = tempDir('svc-dist-engine-')
    cleanups.push(() => engineDir.cleanup())
    const engine = await startTestEngine(engineDir.path)
    cleanups.push(() => engine.svc.stop())
    const receiver = await startWebhookReceiver()
    cleanups.push(() => receiver.close())
    const env = {
      ...engine.env,
      KAFKA_BROKERS: requireKafkaBrokers(),
      REDIS_URL: requireRedisUrl(),
      BUS_NAMESPACE: `dist${randomBytes(4).toString('hex')}`,
      PIPELINE_BATCH_BLOCKS: '50',
      SVC_ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'info',
      X402_LOCAL_CHAIN: 'off',
      WEBHOOK_ALLOW_LOOPBACK: 'on',
      NODE_EXTRA_CA_CERTS: receiver.certPath,
    }
    const role = (args: string[]): SvcChild => {
      const dir = tempDir('svc-dist-role-')
      const child = spawnSvc(args, { ...env, DATA_DIR: dir.path })
      cleanups.push(() => dir.cleanup(), () => child.stop())
      return child
    }

    expect((await runSvc(['migrate'], { ...env, DATA_DIR: engineDir.path })).code).toBe(0)
    const simDir = tempDir('svc-dist-sim-')
    cleanups.push(() => simDir.cleanup())
    const sim = await runSvc(['sim', '--until', String(BLOCKS)], { ...env, DATA_DIR: simDir.path }, 240_000)
    expect(sim.code, sim.stderr.slice(-2000)).toBe(0)

    const apiDir = tempDir('svc-dist-api-')
    cleanups.push(() => apiDir.cleanup())
    const api = await startSvcServer(['api'], await freePort(), { ...env, DATA_DIR: apiDir.path }, 120_000)
    cleanups.push(() => api.stop())
    role(['pipeline', 'alerts'])
    role(['pipeline', 'scans'])
    // The block /stats is measured through; undefined while it does not answer 200 (a busy
    // machine can take an engine read past a short wait, and the poll asks again).
    const servedNow = async (): Promise<number | undefined> => {
      const r = await fetch(`${api.base}/stats`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined)
      if (r?.status !== 200) return undefined
      const body = (await r.json()) as { data: { chains: Array<{ chain_id: number; measured_through_block: number | null }> } }
      return body.data.chains.find((c) => c.chain_id === 4663)?.measured_through_block ?? 0
    }
    const served = () => until('/stats to answer', servedNow, 60_000)

    // The pipeline consumes; the API, another process, serves what it stored.
    const first = role(['pipeline', 'chain-4663'])
    const partway = await until('the API to serve the first batches', async () => {
      const b = await servedNow()
      return b !== undefined && b >= 300 ? b : undefined
    }, 120_000)
    // Stopped mid-stream (it finishes its batch and commits), then started again.
    expect((await first.stop()).code).toBe(0)
    const stoppedAt = await served()
    expect(stoppedAt).toBeGreaterThanOrEqual(partway)
    expect(stoppedAt, 'stopped before the end of the stream').toBeLessThan(BLOCKS)
    role(['pipeline', 'chain-4663'])
    await until('the restarted pipeline to reach the end', async () => ((await servedNow()) === BLOCKS ? true : undefined), 180_000)

    const ch: ClickHouseClient = await createClickHouse({ ...loadConfig({}), ...engine.env, CLICKHOUSE_REQUEST_TIMEOUT_MS: 30_000 })
    cleanups.push(() => ch.close())
    const [stored] = await queryRows<Record<string, string>>(ch, STORED_TOTALS)
    const got = Object.fromEntries(Object.entries(stored!).map(([k, v]) => [k, k === 'volume' ? v : Number(v)]))
    expect(got).toEqual(await uninterruptedTotals(BLOCKS, followed4663(loadConfig({}))))
    expect(await queryRows(ch, 'SELECT min(number) AS lo, max(number) AS hi, uniqExact(number) AS n FROM chain_blocks')).toEqual([{ lo: '1', hi: String(BLOCKS), n: String(BLOCKS) }])

    // A structure scan requested over the API, run by the scans role.
    const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
    const [token] = await queryRows<{ token: string }>(ch, 'SELECT token FROM launches ORDER BY block_number LIMIT 1')
    const job = ((await (await fetch(`${api.base}/structure/${token!.token}`, { method: 'POST' })).json()) as { data: { id: string } }).data
    const state = await until('the scan to finish', async () => {
      const [r] = await queryRows<{ state: string }>(ch, 'SELECT argMax(state, version) AS state FROM scan_jobs WHERE job_id = {id:String}', { id: job.id })
      return r && ['done', 'failed'].includes(r.state) ? r.state : undefined
    }, 120_000)
    expect(state).toBe('done')
    expect(await queryRows(ch, 'SELECT count() AS n FROM structure_snapshots WHERE token = {t:String}', { t: token!.token })).toEqual([{ n: '1' }])

    // A test alert, published by the API and delivered by the alerts role, once.
    const { key } = (await (await fetch(`${api.base}/admin/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ plan: 'desk' }) })).json()) as { key: string }
    const keyed = { 'x-svc-key': key, 'content-type': 'application/json' }
    expect((await fetch(`${api.base}/alerts/webhook`, { method: 'POST', headers: keyed, body: JSON.stringify({ url: `${receiver.base}/hook` }) })).status).toBe(200)
    expect((await fetch(`${api.base}/alerts/test`, { method: 'POST', headers: { 'x-svc-key': key } })).status).toBeLessThan(300)
    await until('the alert delivered', async () => (receiver.to('/hook').length > 0 ? true : undefined), 60_000)
    await new Promise((r) => setTimeout(r, 3_000))
    expect(receiver.to('/hook')).toHaveLength(1)
    expect(JSON.parse(receiver.to('/hook')[0]!.body)).toMatchObject({ kind: 'test' })
  })
})
