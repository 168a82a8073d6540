import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { followed5042 } from '../../bin/follow.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { chainsIngested } from '../../core/records/data-clock.ts'
import { createChainProcessor, type ChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { foldSolana, planSolanaFold } from '../../pipelines/process/solana/fifo-refresh.ts'
import type { SolanaTradeRow } from '../../pipelines/process/solana/usd-leg-step.ts'
import { DEFAULT_START_TIME } from '../../pipelines/sim/chain-sim.ts'
import { simLaunchpads } from '../../pipelines/sim/launchpads.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { startAuditSchedule } from '../../pipelines/verify/audit-schedule.ts'
import { checkView, formatReport, runVerify } from '../../pipelines/verify/run-verify.ts'
import { confirmedDrift } from '../../pipelines/verify/confirmed-drift.ts'
import { fifoStateCheck } from '../../pipelines/verify/fifo-state-check.ts'
import { foldPairs } from '../../products/wallet/fifo-refresh.ts'
import { randomWei, seeded } from '../setup/fifo-reference.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'
import { runSvc } from '../setup/svc-process.ts'

/**
 * svc verify on the views the hardhat chain does not have (issue 24): the mention windows and
 * caller stats of the simulated social world, the Solana venue's FIFO, and chain 5042's activity
 * tables. For each, one derived row is deleted or altered: verify names that key with both
 * values, POST /admin/verify with repair rebuilds it, and the whole audit is clean again.
 */
let env: Embedded
let arc: ChainProcessor

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '200' }, { social: true })
  await env.ingestThrough(600)
  arc = createChainProcessor({
    ch: env.rt.ch, bus: env.rt.bus, logger: env.rt.logger, metrics: env.rt.metrics, chainId: 5042, follow: followed5042(env.rt.config),
    maxBatchBlocks: 200, onAdvance: (b, seq) => env.api.watermarks.advance(5042, b, seq),
  })
  await arc.start()
  await createSimSource({
    bus: env.rt.bus, logger: env.rt.logger, chainId: 5042, seed: 5042, blockSeconds: 2,
    start: { fromBlock: 1, genesis: DEFAULT_START_TIME }, untilBlock: 600, social: false, prices: false, launchpads: simLaunchpads(5042),
  }).run()
  const deadline = Date.now() + 120_000
  while (arc.watermark() < 600) {
    if (Date.now() > deadline) throw new Error(`5042 stuck at ${arc.watermark()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  // Solana venue trades, folded as the Solana processor folds a batch.
  const rnd = seeded(5)
  const trades: SolanaTradeRow[] = Array.from({ length: 120 }, (_, i) => ({
    signature: `sig${i}`, slot: 1000 + i, block_time: 1_735_689_600 + i * 30, wallet: `W${i % 4}`, mint: `M${i % 3}`, side: rnd() < 0.55 ? 'buy' : 'sell',
    token_qty: randomWei(rnd, 1n, 10n ** 12n).toString(), quote: 'USD', quote_amount: '0', usd_micro: randomWei(rnd, 1n, 10n ** 9n).toString(), sol_usd_close: '0',
  }))
  for (let i = 0; i < trades.length; i += 40) {
    const batch = trades.slice(i, i + 40)
    const plan = await planSolanaFold(env.rt.ch, batch)
    await env.rt.ch.insert({ table: 'solana_trades', values: batch, format: 'JSONEachRow' })
    await foldSolana(env.rt.ch, plan)
  }
}, 240_000)

afterAll(async () => {
  await arc?.stop()
  await env?.close()
})

const ch = () => env.rt.ch
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

/** POST /admin/verify for one view (and its chain, when it has one). */
async function verify(view: string, opts: { repair?: boolean; chain?: number } = {}) {
  const res = await env.api.app.inject({ method: 'POST', url: '/admin/verify', headers: admin, payload: { views: [view], repair: opts.repair ?? false } })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json().views as Array<{ view: string; chain: number | null; checked: number; drifted: number; repaired?: number; first: Array<{ key: string; kept: string; fresh: string }> }>).find((v) => v.chain === (opts.chain ?? null))!
}

describe('svc verify on the social, Solana and 5042 views', () => {
  it('finds every view populated and nothing drifted', async () => {
    const r = await runVerify(ch())
    expect(r.views.filter((v) => v.drifted > 0), formatReport(r)).toEqual([])
    const checked = (view: string, chain: number | null = null) => r.views.find((v) => v.view === view && v.chain === chain)!.checked
    for (const view of ['mention_hourly', 'mention_minute', 'caller_stats', 'solana_fifo_state']) expect(checked(view), view).toBeGreaterThan(0)
    for (const view of ['arc_token_activity', 'arc_activity_by_block', 'arc_venue_stats']) expect(checked(view, 5042), view).toBeGreaterThan(0)
    // The token products' records are kept for chain 4663 only, and audited there only.
    for (const view of ['token_state', 'deployer_state', 'holder_balances']) expect(r.views.filter((v) => v.view === view).map((v) => v.chain), view).toEqual([4663])
    // A sample checks fewer keys, the same ones again for the same seed.
    const a = await runVerify(ch(), { sample: 0.3, seed: 9, views: ['mention_minute'] })
    const b = await runVerify(ch(), { sample: 0.3, seed: 9, views: ['mention_minute'] })
    expect(a.views[0]!.checked).toBeLessThan(checked('mention_minute'))
    expect(a.views[0]!.checked).toBeGreaterThan(0)
    expect(b.views[0]!.checked).toBe(a.views[0]!.checked)
  })

  it('lists the chains it audits by chain_blocks key, the same chains a scan of every row finds', async () => {
    const scanned = (await queryRows<{ c: number }>(env.rt.ch, 'SELECT DISTINCT chain_id AS c FROM chain_blocks ORDER BY c')).map((r) => Number(r.c))
    expect(scanned).toEqual([4663, 5042])
    expect(await chainsIngested(env.rt.ch)).toEqual(scanned)
  })

  it('mention_hourly and mention_minute: a window deleted', async () => {
    for (const [view, bucket] of [['mention_hourly', 'hour'], ['mention_minute', 'minute']] as const) {
      const [w] = await queryRows<{ token: string; b: string }>(ch(), `SELECT token, toString(${bucket}) AS b FROM ${view} ORDER BY token, ${bucket} LIMIT 1`)
      await ch().command({ query: `DELETE FROM ${view} WHERE token = {t:String} AND ${bucket} = {b:DateTime}`, query_params: { t: w!.token, b: w!.b } })
      expect(await verify(view), view).toMatchObject({ drifted: 1, first: [{ key: `${w!.token}/${w!.b}`, kept: 'missing' }] })
      expect(await verify(view, { repair: true }), view).toMatchObject({ drifted: 0, repaired: 1 })
    }
  })

  it('caller_stats: an author with a grade it never had', async () => {
    const [a] = await queryRows<{ author: string }>(ch(), 'SELECT author FROM caller_stats GROUP BY author ORDER BY author LIMIT 1')
    await ch().insert({ table: 'caller_stats', values: [{ author: a!.author, graded: 1 }], format: 'JSONEachRow' })
    const r = await verify('caller_stats')
    expect(r).toMatchObject({ drifted: 1, first: [{ key: a!.author }] })
    expect(r.first[0]!.kept).not.toBe(r.first[0]!.fresh)
    expect(await verify('caller_stats', { repair: true })).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('solana_fifo_state: a pair with a newer state that lost its realized sum', async () => {
    await ch().command({
      query: `INSERT INTO solana_fifo_state (wallet, mint, legs, through, state, unmatched_sells, holds_added)
              SELECT wallet, mint, legs + 1, through, (state.lots, state.realized + 5, state.sells, state.winning_sells, state.unmatched_qty, state.matched_cost, state.spent, state.received), unmatched_sells, []
              FROM solana_fifo_state WHERE wallet = 'W1' AND mint = 'M1' ORDER BY legs DESC LIMIT 1`,
    })
    expect(await verify('solana_fifo_state')).toMatchObject({ drifted: 1, first: [{ key: 'W1/M1' }] })
    expect(await verify('solana_fifo_state', { repair: true })).toMatchObject({ drifted: 0, repaired: 1 })
  })

  it('arc_token_activity and arc_activity_by_block: a block row deleted; arc_venue_stats: a count altered (named, re-ingested rather than rebuilt)', async () => {
    const [t] = await queryRows<Record<string, unknown>>(ch(), 'SELECT * FROM arc_token_activity FINAL WHERE chain_id = 5042 AND transfers > 0 ORDER BY token, block_number DESC LIMIT 1')
    const key = `${t!.token}/${t!.block_number}`
    await ch().command({ query: 'DELETE FROM arc_activity_by_block WHERE token = {t:String} AND block_number = {b:UInt64}', query_params: { t: t!.token, b: t!.block_number } })
    expect(await verify('arc_activity_by_block', { chain: 5042 })).toMatchObject({ drifted: 1, first: [{ key, kept: 'missing' }] })
    await ch().command({ query: 'DELETE FROM arc_token_activity WHERE token = {t:String} AND block_number = {b:UInt64}', query_params: { t: t!.token, b: t!.block_number } })
    expect(await verify('arc_token_activity', { chain: 5042 })).toMatchObject({ drifted: 1, first: [{ key, kept: 'missing' }] })
    // What re-ingesting the block gives back: the rows as they were.
    for (const table of ['arc_token_activity', 'arc_activity_by_block']) {
      await ch().insert({ table, values: [t!], format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 0 } })
    }
    expect(await verify('arc_token_activity', { chain: 5042 })).toMatchObject({ drifted: 0 })

    const [v] = await queryRows<Record<string, unknown>>(ch(), "SELECT * FROM arc_venue_stats FINAL WHERE chain_id = 5042 AND via = '*' ORDER BY block_number DESC LIMIT 1")
    await ch().insert({ table: 'arc_venue_stats', values: [{ ...v!, block_number: Number(v!.block_number) + 1, cum_launches: Number(v!.cum_launches) + 1 }], format: 'JSONEachRow' })
    const r = await verify('arc_venue_stats', { chain: 5042, repair: true })
    expect(r).toMatchObject({ drifted: 1, first: [{ key: '*' }], repair_note: expect.stringMatching(/re-ingest/) })
    await ch().command({ query: "DELETE FROM arc_venue_stats WHERE via = '*' AND block_number = {b:UInt64}", query_params: { b: Number(v!.block_number) + 1 } })
    expect(await verify('arc_venue_stats', { chain: 5042 })).toMatchObject({ drifted: 0 })
  })

  it('the scheduled audit counts the keys it checks, confirms a drift, names the view in /health, and clears it once repaired', async () => {
    const audit = startAuditSchedule({ ch: ch(), logger: env.rt.logger, metrics: env.rt.metrics, sample: 1, cpuShare: 1, firstDelayMs: 0, confirmDelayMs: 50 })
    env.api.deps.audit = audit
    try {
      const [a] = await queryRows<{ author: string }>(ch(), 'SELECT author FROM caller_stats GROUP BY author ORDER BY author DESC LIMIT 1')
      await ch().insert({ table: 'caller_stats', values: [{ author: a!.author, hits: 2 }], format: 'JSONEachRow' })
      const until = async (ok: () => boolean) => {
        const deadline = Date.now() + 120_000
        while (!ok()) {
          if (Date.now() > deadline) throw new Error(`audit: drifted views ${audit.driftedViews().join(', ')}`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
      await until(() => audit.driftedViews().includes('caller_stats'))
      const health = await env.api.app.inject({ method: 'GET', url: '/health' })
      expect(health.json().drifted_views).toEqual(['caller_stats'])
      expect(await env.rt.metrics.auditDrift.get({ view: 'caller_stats' })).toBe(1)
      expect(await env.rt.metrics.auditKeysChecked.get({ view: 'fifo_state' })).toBeGreaterThan(0)
      expect(await env.rt.metrics.render()).toMatch(/svc_audit_drift_total\{view="caller_stats"\} 1/)
      // A repair through the admin door: the view leaves /health at once, and stays clean on the next pass.
      expect(await verify('caller_stats', { repair: true })).toMatchObject({ drifted: 0, repaired: 1 })
      expect((await env.api.app.inject({ method: 'GET', url: '/health' })).json().drifted_views).toEqual([])
      const checked = await env.rt.metrics.auditKeysChecked.get({ view: 'caller_stats' })
      const deadline = Date.now() + 120_000
      while ((await env.rt.metrics.auditKeysChecked.get({ view: 'caller_stats' })) <= checked) {
        if (Date.now() > deadline) throw new Error('no later audit pass of caller_stats')
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(audit.driftedViews()).toEqual([])
      expect(await env.rt.metrics.auditDrift.get({ view: 'caller_stats' })).toBe(1)
    } finally {
      await audit.stop()
      env.api.deps.audit = undefined
    }
  })

  it('each look of the scheduled audit starts at its quiet moment (just after a batch was served), and a stop does not wait for one', async () => {
    const checked = async () => {
      const text = await env.rt.metrics.render()
      return [...text.matchAll(/^svc_audit_keys_checked_total\{[^}]*\} (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0)
    }
    let asked = 0
    let release = () => {}
    const held = new Promise<void>((r) => (release = r))
    const audit = startAuditSchedule({ ch: ch(), logger: env.rt.logger, metrics: env.rt.metrics, sample: 1, cpuShare: 1, firstDelayMs: 0, quiet: () => (asked++, held) })
    try {
      const before = await checked()
      const deadline = Date.now() + 10_000
      while (asked === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(asked).toBe(1)
      // Held at the quiet moment: no look ran.
      await new Promise((r) => setTimeout(r, 300))
      expect(await checked()).toBe(before)
      release()
      while ((await checked()) === before && Date.now() < deadline + 60_000) await new Promise((r) => setTimeout(r, 50))
      expect(await checked()).toBeGreaterThan(before)
      // Every look asked for its moment: more than one view was looked at by now, one moment each.
      while (asked < 3 && Date.now() < deadline + 60_000) await new Promise((r) => setTimeout(r, 50))
      expect(asked).toBeGreaterThanOrEqual(3)
    } finally {
      // A stop while a look waits for its moment (one that never comes) returns at once.
      const stopping = startAuditSchedule({ ch: ch(), logger: env.rt.logger, metrics: env.rt.metrics, sample: 1, cpuShare: 1, firstDelayMs: 0, quiet: () => new Promise<void>(() => {}) })
      await new Promise((r) => setTimeout(r, 200))
      const t0 = Date.now()
      await Promise.all([audit.stop(), stopping.stop()])
      expect(Date.now() - t0).toBeLessThan(2_000)
    }
  })

  it('the audit\'s second look confirms only drift that stood still: legs inserted but not yet folded at either look are a refresh in flight', async () => {
    const look = () => checkView(ch(), fifoStateCheck, 4663, { sample: 1, seed: 0, first: 5 })
    const legs = (wallet: string, token: string, block: number) => ch().insert({
      table: 'wallet_legs', format: 'JSONEachRow',
      values: [{ chain_id: 4663, wallet, token, block_number: block, log_index: 0, block_time: 1_735_689_600, tx_hash: '0x01', side: 1, qty: '1000', cost: '7' }],
    })
    const [w1, w2, stuck, t] = ['0xa1', '0xa2', '0xa3', '0xb1'].map((p) => p.padEnd(42, '0'))
    // A pair whose legs are in but never folded: drift that stands still. A pair whose batch is in flight at the first look.
    await legs(stuck!, t!, 900_001)
    await legs(w1!, t!, 900_002)
    const first = await look()
    expect(first.drifts.map((d) => d.key).sort()).toEqual([`${w1}/${t}`, `${stuck}/${t}`])
    // Between the looks the pipeline folds the first pair, and the next batch brings a new pair not yet folded.
    await foldPairs(ch(), 4663, [[w1!, t!]], 900_002)
    await legs(w2!, t!, 900_003)
    const second = await look()
    expect(second.drifts.map((d) => d.key).sort()).toEqual([`${w2}/${t}`, `${stuck}/${t}`])
    const confirmed = confirmedDrift(first, second, 5)
    expect(confirmed.drifted).toBe(1)
    expect(confirmed.report).toMatchObject({ view: 'fifo_state', chain: 4663, drifted: 1, first: [{ key: `${stuck}/${t}`, kept: 'missing' }] })
    // A drifted key whose raw rows moved between the looks (its next batch not yet folded) is in flight too.
    await foldPairs(ch(), 4663, [[w2!, t!]], 900_003)
    await legs(stuck!, t!, 900_004)
    expect(confirmedDrift(second, await look(), 5).drifted).toBe(0)
    await ch().command({ query: 'DELETE FROM wallet_legs WHERE chain_id = 4663 AND block_number > 900000' })
    await ch().command({ query: 'DELETE FROM fifo_state WHERE chain_id = 4663 AND token = {t:String}', query_params: { t } })
    await ch().command({ query: 'DELETE FROM fifo_hold_counts WHERE chain_id = 4663 AND token = {t:String}', query_params: { t } })
    expect((await look()).drifted).toBe(0)
  })

  it('svc verify --base asks the running service: prints the drifted key with both values, exits 1; --repair exits 0', async () => {
    const base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
    const [w] = await queryRows<{ token: string; m: string }>(ch(), 'SELECT token, toString(minute) AS m FROM mention_minute ORDER BY token DESC, minute LIMIT 1')
    await ch().command({ query: 'DELETE FROM mention_minute WHERE token = {t:String} AND minute = {m:DateTime}', query_params: { t: w!.token, m: w!.m } })
    const cli = (...args: string[]) => runSvc(['verify', '--base', base, '--view', 'mention_minute', ...args], { SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent' })
    const found = await cli()
    expect(found.code, found.stderr).toBe(1)
    expect(found.stdout).toContain('DRIFT mention_minute: ')
    expect(found.stdout).toContain(`${w!.token}/${w!.m}`)
    expect(found.stdout).toMatch(/kept: {2}missing\n {10}fresh: {1}\(\d+,\[/)
    const repaired = await cli('--repair')
    expect(repaired.code, repaired.stderr).toBe(0)
    expect(repaired.stdout).toMatch(/ok {4}mention_minute: \d+ keys checked, 0 drifted, repaired 1/)
    const wrongToken = await runSvc(['verify', '--base', base], { SVC_ADMIN_TOKEN: 'not-the-admin-token-000', LOG_LEVEL: 'silent' })
    expect(wrongToken.code).toBe(1)
    expect(wrongToken.stderr).toMatch(/svc verify --base: 40[13] /)
  })
})
