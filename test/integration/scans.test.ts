import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startScansRole } from '../../bin/scans-role.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { moveJob } from '../../products/structure/scan-job.ts'
import { writeScanJob } from '../../products/structure/scan-jobs.ts'
import { TOPICS } from '../../core/bus/topics.ts'
import type { ScansWorker } from '../../pipelines/scans/scans-worker.ts'
import { shareOf } from '../../products/structure/holder-labels.ts'
import { address, createConstructedChain, ZERO, type Transfer } from '../setup/constructed-chain.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { until } from '../setup/until.ts'
import { scanJobView } from '../../products/structure/scan-job-view.ts'

let env: Embedded
let worker: ScansWorker | undefined
beforeAll(async () => {
  env = await startEmbedded()
})
afterAll(async () => {
  await worker?.stop()
  await env?.close()
})

const call = (method: 'GET' | 'POST', url: string) => env.api.app.inject({ method, url })

async function jobStates(id: string): Promise<string[]> {
  const rows = await queryRows<{ state: string }>(env.rt.ch, 'SELECT state FROM scan_jobs WHERE job_id = {id:String} ORDER BY version', { id })
  return rows.map((r) => r.state)
}

async function settled(path: string) {
  let body: any
  await until(`a finished job at ${path}`, async () => {
    body = (await call('GET', path)).json()
    return body.data.job && ['done', 'failed'].includes(body.data.job.state) ? true : undefined
  })
  return body
}

describe('scan jobs', () => {
  it('a POST for an address the chain has nothing of is refused before queuing; a repeated request while the job is queued answers the same job; a scan of an unknown token ends failed with its reason; a request after that queues a new job', async () => {
    await createConstructedChain(env.rt.ch).blocks(1, 2)
    // No worker: the job stays queued.
    await env.scans.stop()
    const token = address(0xf0)
    const refused = await call('POST', `/forensics/${token}`)
    expect([refused.statusCode, refused.json().error.code]).toEqual([404, 'not_found'])
    expect(await queryRows(env.rt.ch, 'SELECT 1 FROM scan_jobs WHERE token = {token:String}', { token })).toEqual([])
    // Queued in process (as the daily scan of a watched token the chain has nothing of yet is).
    const job = scanJobView(await env.api.deps.scans.request('forensics', token, 'request'))
    expect(job).toMatchObject({ kind: 'forensics', token, state: 'queued', reason: null, trigger: 'request', measured_through_block: null })
    const again = scanJobView(await env.api.deps.scans.request('forensics', token, 'request'))
    expect(again.id).toBe(job.id)
    expect(again.state).toBe('queued')
    const pending = (await call('GET', `/forensics/${token}`)).json()
    expect(pending.data).toMatchObject({ found: false, result: null, job: { id: job.id, state: 'queued' } })

    // A worker starts: it takes the queued job from the bus, and refuses the unknown token.
    worker = await startScansRole(env.rt, env.api.deps.scans, { daily: { periodSeconds: 86_400, checkMs: 0 } })
    const done = await settled(`/forensics/${token}`)
    expect(done.data.job).toMatchObject({ id: job.id, state: 'failed' })
    expect(done.data.job.reason).toMatch(/no contract creation, launch or transfer of 0x[0-9a-f]{40} has been ingested/)
    expect(done.data.found).toBe(false)
    expect(await jobStates(job.id)).toEqual(['queued', 'running', 'failed'])

    const next = scanJobView(await env.api.deps.scans.request('forensics', token, 'request'))
    expect(next.id).not.toBe(job.id)
    expect(['queued', 'running', 'failed']).toContain(next.state)
  })

  it('a job left running by a stopped worker runs again when the bus hands it out again; a finished job handed out again is skipped', async () => {
    const token = address(0xf2)
    const queued = await env.api.deps.scans.request('forensics', token, 'request')
    await until('the job to finish', async () => ((await jobStates(queued.id)).includes('failed') ? true : undefined))
    // As if a worker had taken a second job and stopped mid-scan: it is running, and its message comes again.
    const job = { ...queued, id: `${queued.id}-2` }
    await writeScanJob(env.rt.ch, 4663, job)
    await writeScanJob(env.rt.ch, 4663, moveJob(job, 'running', new Date()))
    const message = (id: string) => ({ key: token, value: JSON.stringify({ job_id: id, chain_id: 4663, kind: 'forensics', token }) })
    await env.rt.bus.publish(TOPICS.scanJobs, [message(job.id)])
    await until('the rerun to finish', async () => ((await jobStates(job.id)).includes('failed') ? true : undefined))
    expect(await jobStates(job.id)).toEqual(['queued', 'running', 'running', 'failed'])
    // The first job's message again: nothing changes.
    await env.rt.bus.publish(TOPICS.scanJobs, [message(queued.id), message(job.id)])
    await new Promise((r) => setTimeout(r, 1000))
    expect(await jobStates(queued.id)).toEqual(['queued', 'running', 'failed'])
    expect(await jobStates(job.id)).toEqual(['queued', 'running', 'running', 'failed'])
  })

  it('a job message whose job this role\'s ClickHouse has no record of (requested on another engine) ends failed with the reason, not dropped', async () => {
    const token = address(0xf3)
    const id = 'job-requested-on-another-engine'
    await env.rt.bus.publish(TOPICS.scanJobs, [{ key: `structure:${token}`, value: JSON.stringify({ job_id: id, chain_id: 4663, kind: 'structure', token }) }])
    await until('the unseen job recorded', async () => ((await jobStates(id)).length > 0 ? true : undefined))
    expect(await jobStates(id)).toEqual(['failed'])
    // What the API reads for this scan on the same ClickHouse.
    const job = await env.api.deps.scans.latest('structure', token)
    expect(job).toMatchObject({ id, state: 'failed', kind: 'structure', token })
    expect(job!.reason).toBe(`the scans role has no record of job ${id}: it reads another ClickHouse than the one the scan was requested on (every role must run with the same CLICKHOUSE_URL)`)
  })

  it('POST /structure/{token} answers a job in the same states', async () => {
    const token = address(0xf1)
    await createConstructedChain(env.rt.ch).creation(token, address(0xdf), 1)
    const job = (await call('POST', `/structure/${token}`)).json().data
    expect(job).toMatchObject({ kind: 'structure', token, trigger: 'request' })
    expect(['queued', 'running', 'done', 'failed']).toContain(job.state)
    const again = (await call('POST', `/structure/${token}`)).json().data
    if (again.id !== job.id) expect(await jobStates(job.id)).toContain(expect.stringMatching(/done|failed/))
    await until('the structure job to finish', async () => ((await jobStates(job.id)).some((s) => s === 'done' || s === 'failed') ? true : undefined))
  })

  it('a bad token answers 400 naming the parameter', async () => {
    const r = await call('POST', '/structure/0x123')
    expect(r.statusCode).toBe(400)
    expect(JSON.stringify(r.json().error)).toContain('token')
  })
})

describe('forensics of a constructed token', () => {
  it('equals what the test computes from the constructed transfers, swaps and liquidity events', async () => {
    const chain = createConstructedChain(env.rt.ch)
    const token = address(0x70)
    const deployer = address(0xde)
    const pool = address(0x90)
    const weth = address(0xee)
    const [a, b, c, trader, lp2] = [address(0xa1), address(0xa2), address(0xa3), address(0xa4), address(0xa5)]
    const supply = 1_000_000n * 10n ** 18n + 7n
    const firstSwap = 120
    const list: Transfer[] = [
      { block: 100, from: ZERO, to: deployer, value: supply },
      { block: 101, from: deployer, to: a, value: 10_000n * 10n ** 18n + 3n },
      { block: 102, from: deployer, to: b, value: 5_000n * 10n ** 18n },
      { block: 103, from: a, to: c, value: 1_234n },
      { block: 104, from: deployer, to: a, value: 99n },
      { block: 110, from: deployer, to: pool, value: 800_000n * 10n ** 18n },
      // After the first swap: not pre-launch.
      { block: 121, from: pool, to: trader, value: 1_000n * 10n ** 18n },
      { block: 122, from: deployer, to: c, value: 42n },
    ]
    const funder = address(0xfd)
    await chain.blocks(99, 130)
    await chain.creation(token, deployer, 99)
    // The deployer's funding: WETH before the creation block (the one in the creation block is not before it).
    await chain.transfers(weth, [
      { block: 50, from: funder, to: deployer, value: 3n * 10n ** 18n },
      { block: 60, from: ZERO, to: deployer, value: 11n },
      { block: 99, from: funder, to: deployer, value: 1n },
    ])
    await chain.transfers(token, list)
    await chain.pool(pool, token, weth, 105)
    await chain.liquidity(pool, deployer, 'mint', 110, 5n * 10n ** 18n)
    await chain.liquidity(pool, lp2, 'mint', 111, 7n)
    await chain.swap(pool, token, trader, firstSwap, { tokenOut: 1_000n * 10n ** 18n, wethIn: 10n ** 17n })
    await chain.swap(pool, token, trader, 125, { tokenIn: 10n, wethOut: 1n })
    await chain.liquidity(pool, deployer, 'burn', 126, 4n * 10n ** 18n)

    const job = (await call('POST', `/forensics/${token}`)).json().data
    const body = await settled(`/forensics/${token}`)
    expect(body.data.job).toMatchObject({ id: job.id, state: 'done', measured_through_block: 130 })
    expect(body.measured_through_block).toBe(130)
    // The dossier shows the same job as its forensics status.
    const dossier = (await call('GET', `/report/${token}`)).json()
    expect(dossier.data.forensics).toEqual({ status: 'done', job: body.data.job, result: `/forensics/${token}` })
    const r = body.data.result

    // Expected, from the constructed rows.
    const pre = list.filter((t) => t.block < firstSwap)
    const sent = pre.filter((t) => t.from !== ZERO)
    const byRecipient = new Map<string, { received: bigint; fromDeployer: bigint }>()
    for (const t of sent) {
      const e = byRecipient.get(t.to) ?? { received: 0n, fromDeployer: 0n }
      e.received += t.value
      if (t.from === deployer) e.fromDeployer += t.value
      byRecipient.set(t.to, e)
    }
    const recipients = [...byRecipient]
      .sort(([x, p], [y, q]) => (p.received === q.received ? (x < y ? -1 : 1) : p.received > q.received ? -1 : 1))
      .map(([addr, e]) => ({
        address: addr, received_wei: e.received.toString(), share_of_supply: shareOf(e.received, supply),
        from_deployer_wei: e.fromDeployer.toString(), is_pool: addr === pool,
      }))
    const offMarket = sent.filter((t) => t.from === deployer && ![pool, deployer, ZERO].includes(t.to)).reduce((s, t) => s + t.value, 0n)

    expect(r).toMatchObject({
      token, deployer, created_block: 99, launch_pool: pool, launch_block: 105, first_swap_block: firstSwap, supply_wei: supply.toString(),
    })
    expect(r.prelaunch).toEqual({
      before_block: firstSwap,
      minted: [{ to: deployer, value_wei: supply.toString() }],
      transfers_total: sent.length,
      transfers: sent.map((t) => expect.objectContaining({ block: t.block, from: t.from, to: t.to, value_wei: t.value.toString() })),
      transfers_truncated: false,
      recipients,
      recipients_total: byRecipient.size,
      off_market_from_deployer_wei: offMarket.toString(),
    })
    // Insiders: wallets funded off-market, before the first swap, from the deployer or a funded wallet; their balances now.
    const funded = new Set([deployer])
    for (const t of pre) if ((funded.has(t.from) || t.from === ZERO) && t.to !== pool && t.to !== deployer && t.from !== pool) funded.add(t.to)
    funded.delete(deployer)
    const balanceNow = (w: string) => list.reduce((s, t) => s + (t.to === w ? t.value : 0n) - (t.from === w ? t.value : 0n), 0n)
    const insiderBalance = [...funded].reduce((s, w) => s + balanceNow(w), 0n)
    expect(funded.size).toBe(3)
    expect(r.insiders_now).toEqual({ wallets: funded.size, balance_wei: insiderBalance.toString(), share_of_supply: shareOf(insiderBalance, supply) })
    expect(r.deployer_funding.funders).toEqual([
      expect.objectContaining({ address: funder, token: weth, value_wei: (3n * 10n ** 18n).toString(), block: 50 }),
      expect.objectContaining({ address: ZERO, token: weth, value_wei: '11', block: 60 }),
    ])
    expect(r.liquidity).toEqual([
      { pool, provider: deployer, added: (5n * 10n ** 18n).toString(), removed: (4n * 10n ** 18n).toString(), is_deployer: true },
      { pool, provider: lp2, added: '7', removed: '0', is_deployer: false },
    ])
  })
})

describe('GET /wallet/{address}: insider flow', () => {
  it('off-market supply acquired per token, WETH realized selling it and the share of flagged counterparties equal what the test computes', async () => {
    const chain = createConstructedChain(env.rt.ch)
    const [token, other, deployer, pool, otherPool, weth] = [address(0x73), address(0x74), address(0xd3), address(0x93), address(0x94), address(0xe3)]
    const [wallet, friend, plain] = [address(0xa7), address(0xa8), address(0xa9)]
    const firstSwap = 210
    const list: Transfer[] = [
      { block: 200, from: ZERO, to: deployer, value: 10_000n },
      { block: 201, from: deployer, to: wallet, value: 1_000n },
      { block: 202, from: friend, to: wallet, value: 500n },
      { block: 205, from: deployer, to: pool, value: 5_000n },
      { block: 211, from: pool, to: wallet, value: 50n },
      { block: 212, from: deployer, to: wallet, value: 7n },
      { block: 213, from: wallet, to: pool, value: 300n },
      { block: 214, from: wallet, to: pool, value: 200n },
      { block: 215, from: wallet, to: plain, value: 1n },
    ]
    const sells = [
      { block: 213, qty: 300n, weth: 3n * 10n ** 17n },
      { block: 214, qty: 200n, weth: 2n * 10n ** 17n },
    ]
    await chain.blocks(200, 220)
    await chain.creation(token, deployer, 199)
    await chain.pool(pool, token, weth, 204)
    await chain.transfers(token, list)
    await chain.swap(pool, token, address(0xa0), firstSwap, { tokenOut: 1n, wethIn: 1n })
    for (const s of sells) await chain.swap(pool, token, wallet, s.block, { tokenIn: s.qty, wethOut: s.weth })
    // Another token the wallet only bought from its pool: nothing acquired off-market.
    await chain.pool(otherPool, other, weth, 204)
    await chain.transfers(other, [{ block: 206, from: otherPool, to: wallet, value: 9n }])
    // Flags: the deployer's record carries the insider-prep flag; the archive labelled the friend insider.
    await env.rt.ch.insert({ table: 'deployer_state', format: 'JSONEachRow', values: [{ chain_id: 4663, deployer, launched: 1, real: 0, dead: 0, insider_prep_count: 1, best_token: token, best_symbol: 'T', best_volume: '0', score: 10, band: 'poor', version: 1 }] })
    await env.rt.ch.insert({
      table: 'snapshot_holdings', format: 'JSONEachRow',
      values: [{ chain_id: 4663, wallet: friend, token: other, to_block: 220, balance: '1', labels: JSON.stringify([{ kind: 'insider', from: deployer, received_wei: '1', block: 1 }]) }],
    })

    const res = await env.api.app.inject({ method: 'GET', url: `/wallet/${wallet}` })
    expect(res.statusCode).toBe(200)
    const flow = res.json().data.insider_flow

    const offMarket = list.filter((t) => t.to === wallet && t.block < firstSwap && t.from !== pool)
    const counterparties = new Set(list.flatMap((t) => (t.to === wallet ? [t.from] : t.from === wallet ? [t.to] : [])).filter((w) => w !== pool && w !== ZERO))
    const flagged = [...counterparties].filter((w) => w === deployer || w === friend)
    expect(flow).toEqual({
      tokens: [{
        token,
        acquired_wei: offMarket.reduce((s, t) => s + t.value, 0n).toString(),
        receipts: offMarket.length,
        first_block: Math.min(...offMarket.map((t) => t.block)),
        sold_wei: sells.reduce((s, x) => s + x.qty, 0n).toString(),
        weth_realized_wei: sells.reduce((s, x) => s + x.weth, 0n).toString(),
      }],
      tokens_total: 1,
      weth_realized_wei: sells.reduce((s, x) => s + x.weth, 0n).toString(),
      counterparties: { total: counterparties.size, flagged: flagged.length, flagged_percent: Math.round((flagged.length * 10_000) / counterparties.size) / 100 },
    })
    expect(counterparties.size).toBe(3)
    expect(flagged).toHaveLength(2)
  })
})
