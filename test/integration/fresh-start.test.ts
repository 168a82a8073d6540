import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { socialCheckpointPath } from '../../pipelines/sim/social-checkpoint.ts'
import { freePort, runSvc, startSvcServer, type SvcServer } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * `npm start` on a fresh data dir, as a newcomer meets it: 24 simulated hours of chain and
 * social history are backfilled with a progress line, and within 90 s the social and deployer
 * products have something to show. Then the service is stopped and started again on the same
 * data: the chain continues from its watermark and the social world from its checkpoint, with
 * nothing of the social history published twice or lost.
 */

const ADMIN = 'fresh-start-admin-token-0001'
const dir = tempDir('svc-fresh-')
const env = { DATA_DIR: dir.path, SVC_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', KAFKA_BROKERS: '', REDIS_URL: '' }
const LIVING_WITHIN_MS = 90_000
const STOP_WITHIN_MS = 60_000
let svc: SvcServer | undefined

afterAll(async () => {
  await svc?.stop()
  dir.cleanup()
})

async function get<T>(path: string): Promise<T | null> {
  try {
    const r = await fetch(`${svc!.base}${path}`, { headers: { authorization: `Bearer ${ADMIN}` }, signal: AbortSignal.timeout(15_000) })
    return r.ok ? ((await r.json()) as T) : null
  } catch {
    return null
  }
}

/** Start `svc start`, keeping every output line that mentions `pattern`. */
async function start(port: number, pattern: RegExp): Promise<{ server: SvcServer; lines: string[] }> {
  const server = await startSvcServer(['start'], port, env)
  // What it printed before it answered, then everything after.
  const lines = server.output().split('\n').filter((l) => pattern.test(l))
  server.child.stdout!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter((l) => pattern.test(l))))
  return { server, lines }
}

interface Counts {
  watermark: number
  blocks: number
  distinctBlocks: number
  mentionsThrough: number
  mentions: number
  distinctMentions: number
  sightings: number
  distinctSightings: number
  snapshots: number
  distinctSnapshots: number
}

/** Row counts read straight from the stopped service's data (duplicates would show as count > distinct). */
async function counts(through: string): Promise<Counts> {
  const q = `SELECT
      (SELECT max(number) FROM chain_blocks WHERE chain_id = 4663) AS watermark,
      (SELECT count() FROM chain_blocks WHERE chain_id = 4663) AS blocks,
      (SELECT uniqExact(number) FROM chain_blocks WHERE chain_id = 4663) AS distinctBlocks,
      (SELECT count() FROM mentions WHERE posted_at <= parseDateTimeBestEffort('${through}')) AS mentionsThrough,
      (SELECT count() FROM mentions) AS mentions,
      (SELECT uniqExact(post_id, token, symbol) FROM mentions) AS distinctMentions,
      (SELECT count() FROM tg_sightings) AS sightings,
      (SELECT uniqExact(room, message_id, token) FROM tg_sightings) AS distinctSightings,
      (SELECT count() FROM follow_snapshots) AS snapshots,
      (SELECT uniqExact(account, observed_at) FROM follow_snapshots) AS distinctSnapshots`
  const r = await runSvc(['sql', q], env, 60_000)
  expect(r.code, r.stderr).toBe(0)
  const row = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, string>
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as unknown as Counts
}

async function lastPostedAt(): Promise<string> {
  const r = await runSvc(['sql', 'SELECT max(posted_at) AS t FROM mentions'], env, 60_000)
  return (JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { t: string }).t
}

describe('a fresh npm start', () => {
  let firstStop: Counts
  let firstPost: string

  it('backfills a day of history with a progress line, and within 90 s serves graded callers, calls, proven deployers and real tokens', async () => {
    const t0 = Date.now()
    const { server, lines } = await start(await freePort(), /backfill/)
    svc = server
    const heldAt: Record<string, number> = {}
    const hold = (what: string, ok: boolean) => {
      if (ok && heldAt[what] === undefined) heldAt[what] = Date.now() - t0
    }
    while (Object.keys(heldAt).length < 4 && Date.now() - t0 < LIVING_WITHIN_MS) {
      const [stats, callers, calls, board] = await Promise.all([
        get<{ data: { chains: Array<{ real_tokens: number }> } }>('/stats'),
        get<{ data: { callers: Array<{ grade: string | null; score: number | null }> } }>('/callers'),
        get<{ data: { calls: unknown[] } }>('/signals/calls'),
        get<{ data: { deployers: Array<{ score: number | null }> } }>('/leaderboard'),
      ])
      hold('real tokens', (stats?.data.chains[0]?.real_tokens ?? 0) > 0)
      hold('graded callers', (callers?.data.callers ?? []).some((c) => c.grade !== null && c.score !== null))
      hold('calls', (calls?.data.calls.length ?? 0) > 0)
      hold('proven deployers', (board?.data.deployers ?? []).some((d) => (d.score ?? 0) >= 70))
      await new Promise((r) => setTimeout(r, 1000))
    }
    console.log('fresh start: conditions held after (ms)', heldAt)
    expect(Object.keys(heldAt).sort(), server.output()).toEqual(['calls', 'graded callers', 'proven deployers', 'real tokens'])
    expect(Math.max(...Object.values(heldAt))).toBeLessThanOrEqual(LIVING_WITHIN_MS)
    // The backfill announces itself and reports blocks done / total, rate and time left (the
    // total: the day of history, and any block that came due while the simulator started).
    expect(lines.join('\n')).toMatch(/backfill \d+\/432\d\d blocks \(\d+%\), \d+ blocks\/s, (about .+ left|time left unknown)/)

    // Stopped during the backfill, it finishes the chain's running batch and stores the social
    // checkpoint first (on a busy machine, longer than the 20 s a stop is given elsewhere).
    await server.stop(STOP_WITHIN_MS)
    svc = undefined
    firstPost = await lastPostedAt()
    firstStop = await counts(firstPost)
    expect(firstStop.watermark).toBeGreaterThan(1000)
    expect(firstStop.mentions).toBeGreaterThan(0)
  }, 240_000)

  it('a restart resumes: the chain from its watermark, the social world from its checkpoint, nothing published twice', async () => {
    const checkpoint = JSON.parse(readFileSync(socialCheckpointPath(dir.path, 4663), 'utf8')) as { block: number }
    // The social world's checkpoint is where the stopped service left it: at the chain's watermark, at most a block behind.
    expect(checkpoint.block).toBeGreaterThanOrEqual(firstStop.watermark - 1)

    const { server, lines } = await start(await freePort(), /social world resumed|backfill: /)
    svc = server
    const deadline = Date.now() + 90_000
    let through = 0
    while (through <= firstStop.watermark + 1000 && Date.now() < deadline) {
      const stats = await get<{ data: { chains: Array<{ measured_through_block: number | null }> } }>('/stats')
      through = stats?.data.chains[0]?.measured_through_block ?? 0
      await new Promise((r) => setTimeout(r, 1000))
    }
    // Let the social pipeline take the posts of those blocks too.
    await new Promise((r) => setTimeout(r, 3000))
    await server.stop()
    svc = undefined
    expect(through, server.output()).toBeGreaterThan(firstStop.watermark + 1000)
    expect(lines.join('\n')).toMatch(/social world resumed from its checkpoint/)
    expect(lines.join('\n')).toMatch(new RegExp(`"from":${firstStop.watermark + 1},`))

    const after = await counts(firstPost)
    // The chain continued from its watermark: blocks 1..N, each once.
    expect(after.watermark).toBeGreaterThan(firstStop.watermark + 1000)
    expect(after.blocks).toBe(after.watermark)
    expect(after.distinctBlocks).toBe(after.watermark)
    // The social history already ingested is unchanged, and nothing was ingested twice.
    expect(after.mentionsThrough).toBe(firstStop.mentionsThrough)
    expect(firstStop.mentionsThrough).toBe(firstStop.mentions)
    expect(after.mentions).toBeGreaterThan(firstStop.mentions)
    expect(after.mentions).toBe(after.distinctMentions)
    expect(after.sightings).toBe(after.distinctSightings)
    expect(after.snapshots).toBe(after.distinctSnapshots)
  }, 180_000)
})
