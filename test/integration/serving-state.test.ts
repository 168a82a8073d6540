import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { DEAD_AFTER_IDLE_SECONDS } from '../../products/token/real-token.ts'
import { lastServedBatch, nextServingSeq } from '../../core/records/serving-changes.ts'
import { createTokenServing, sharedRowsPrefix } from '../../products/token/token-serving.ts'
import { liquidityProviders } from '../../pipelines/alerts/producers.ts'
import { blockAt, refreshServingState } from '../../pipelines/process/serving-refresh.ts'
import { readDeployerTokens, refreshDeployerStates, refreshTokenStates, storedDeployersOf, writeTokenStates } from '../../products/token/token-refresh.ts'
import { MAX_VALUES_DECIMALS, tokenStateValues } from '../../products/token/token-state-values.ts'
import { deployerStateCheck } from '../../pipelines/verify/deployer-state-check.ts'
import { createRedisStore } from '../../core/store/redis-store.ts'
import { requireRedisUrl } from '../setup/services.ts'
import { followed4663 } from '../../bin/follow.ts'
import { createChainProcessor } from '../../pipelines/process/chain-processor.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { watchedEngine } from '../setup/watched-engine.ts'
import { until } from '../setup/until.ts'

let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '50' })
  await env.ingestThrough(600)
}, 180_000)
afterAll(async () => env?.close())

/** The real client, telling which keys each token_state read asks for. */
function countingTokenReads(onRead: (keys: string[]) => void): ClickHouseClient {
  return watchedEngine(env.rt.ch, 'query', (args) => {
    const keys = (args.query_params as { keys?: string[] } | undefined)?.keys
    if (args.query.includes('FROM token_state') && keys) onRead(keys)
  })
}

const latestTokens = `SELECT * FROM token_state WHERE chain_id = 4663 ORDER BY token, version DESC LIMIT 1 BY token`

describe('serving state kept by key', () => {
  it('token_state equals a recount of the raw tables for every token', async () => {
    const mismatches = await queryRows<Record<string, string>>(
      env.rt.ch,
      `SELECT s.token AS token, s.swaps, r.swaps, s.weth_volume, r.volume, s.traders, r.traders, s.real_block, tr.real_block
       FROM (${latestTokens}) AS s
       LEFT JOIN (SELECT token, count() AS swaps, sum(weth_in + weth_out) AS volume, uniqExact(trader) AS traders FROM swaps FINAL GROUP BY token) AS r ON r.token = s.token
       LEFT JOIN (SELECT token, min(real_block) AS real_block FROM token_real GROUP BY token) AS tr ON tr.token = s.token
       WHERE s.swaps != r.swaps OR s.weth_volume != r.volume OR s.traders != r.traders OR s.real_block != tr.real_block`,
    )
    expect(mismatches).toEqual([])
    const [counts] = await queryRows<{ state: string; tokens: string }>(
      env.rt.ch,
      `SELECT (SELECT count() FROM (${latestTokens}) WHERE present) AS state,
              (SELECT count() FROM (SELECT address AS t FROM contract_creations UNION DISTINCT SELECT token AS t FROM launches)) AS tokens`,
    )
    expect(Number(counts!.state)).toBeGreaterThan(20)
    expect(counts!.state).toBe(counts!.tokens)
  })

  it('the deployer records a live processor kept, batch by batch and as tokens turned idle, equal one refresh of every deployer at the head', async () => {
    const ch = env.rt.ch
    const latestDeployers = 'SELECT * EXCEPT version FROM deployer_state WHERE chain_id = 4663 ORDER BY deployer, version DESC LIMIT 1 BY deployer'
    const live = await queryRows<Record<string, unknown>>(ch, latestDeployers)
    expect(live.filter((r) => Number(r.launched) > 0).length).toBeGreaterThan(2)
    const [head] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
    const version = nextServingSeq()
    await refreshDeployerStates(ch, 4663, { deployers: new Set(live.map((r) => r.deployer as string)), chainTime: Number(head!.t), version })
    const readBack = await queryRows<Record<string, unknown>>(ch, 'SELECT * EXCEPT version FROM deployer_state WHERE chain_id = 4663 AND version = {v:UInt64} ORDER BY deployer', { v: version })
    expect(readBack).toEqual(live)
  })

  it('the pre-launch distribution, computed once at launch, equals a recount over erc20_transfers', async () => {
    const rows = await queryRows<{ token: string; stored: string; recount: string }>(
      env.rt.ch,
      `SELECT s.token AS token, s.prelaunch_recipients AS stored, ifNull(r.n, 0) AS recount
       FROM (${latestTokens}) AS s
       LEFT JOIN (
         SELECT t.token AS token, uniqExact(t.to_address) AS n FROM erc20_transfers AS t
         INNER JOIN contract_creations AS c ON c.address = t.token
         INNER JOIN launches AS l ON l.token = t.token
         WHERE t.from_address = c.deployer AND t.to_address NOT IN (c.deployer, '0x0000000000000000000000000000000000000000')
           AND t.block_number < l.block_number
         GROUP BY t.token) AS r ON r.token = s.token
       WHERE s.launched`,
    )
    expect(rows.length).toBeGreaterThan(10)
    expect(rows.filter((r) => Number(r.recount) > 0).length).toBeGreaterThan(0)
    for (const r of rows) expect(r.stored, r.token).toBe(r.recount)
  })

  it('the token records a live processor wrote from the frozen facts it keeps equal a refresh that reads every fact', async () => {
    // The processor read creations, launches, real blocks and pre-launch distributions once per
    // token and kept them (products/token/token-facts.ts); 600 blocks of 50 bring launches of
    // tokens created batches before (chain-e2e.test.ts checks tokens turning real against the chain).
    const ch = env.rt.ch
    // eth_usd is the candle of the quote's minute as the refresh found it (a candle may land later).
    const live = await queryRows<Record<string, unknown>>(ch, `SELECT * EXCEPT (version, eth_usd) FROM (${latestTokens}) ORDER BY token`)
    expect(live.filter((r) => Number(r.launched)).length).toBeGreaterThan(10)
    expect(live.filter((r) => Number(r.prelaunch_recipients) > 0).length).toBeGreaterThan(0)
    const version = nextServingSeq()
    await refreshTokenStates(ch, 4663, { tokens: live.map((r) => r.token as string), launched: new Set(), version })
    const fresh = await queryRows<Record<string, unknown>>(ch, 'SELECT * EXCEPT (version, eth_usd) FROM token_state WHERE chain_id = 4663 AND version = {v:UInt64} ORDER BY token', { v: version })
    expect(fresh).toEqual(live)
  })

  it('a live batch\'s token rows made whole and inserted as values equal the rows the insert\'s own derivations write, ETH/USD close included', async () => {
    const ch = env.rt.ch
    const [head] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
    const tokens = (await queryRows<{ token: string }>(ch, `SELECT token FROM (${latestTokens}) ORDER BY token`)).map((r) => r.token)
    const written = (version: number) => queryRows<Record<string, unknown>>(ch, 'SELECT * EXCEPT version FROM token_state WHERE chain_id = 4663 AND version = {v:UInt64} ORDER BY token', { v: version })
    // Which way each refresh wrote: rows as values (an insert) or the INSERT ... SELECT (a command).
    const ways: string[] = []
    const watched = watchedEngine(watchedEngine(ch, 'insert', (a) => { if (a.table === 'token_state') ways.push('values') }), 'command', (a) => { if (a.query.includes('INSERT INTO token_state')) ways.push('statement') })
    const asValues = nextServingSeq()
    await refreshTokenStates(watched, 4663, { tokens, launched: new Set(), version: asValues, candlesThrough: Number(head!.t) })
    const byStatement = nextServingSeq()
    await refreshTokenStates(watched, 4663, { tokens, launched: new Set(), version: byStatement })
    expect(ways).toEqual(['values', 'statement'])
    const values = await written(asValues)
    expect(values.filter((r) => r.eth_usd !== null).length).toBeGreaterThan(5)
    expect(values.filter((r) => Number(r.price_weth) > 0).length).toBeGreaterThan(5)
    expect(values.filter((r) => Number(r.last_activity) > 0).length).toBeGreaterThan(5)
    expect(values).toEqual(await written(byStatement))
  })

  it('the WETH price\'s power of ten for the decimals a row made as values may declare is the engine\'s own; a row with more is left to the insert', async () => {
    const engine = await queryRows<{ d: number; p: number }>(env.rt.ch, 'SELECT toUInt8(number) AS d, 1.0 * pow(10, d - 18) AS p FROM numbers(256) ORDER BY d')
    const ours = engine.map(({ d }) => ({ d, p: tokenStateValues({ token: '', quoted: 1, quote_ratio: 1, decimals: d }, 4663, 0, null)?.price_weth }))
    expect(ours.slice(0, MAX_VALUES_DECIMALS + 1)).toEqual(engine.slice(0, MAX_VALUES_DECIMALS + 1).map(({ d, p }) => ({ d, p: Number(p) })))
    expect(ours.slice(MAX_VALUES_DECIMALS + 1).filter((r) => r.p !== undefined)).toEqual([])
  })

  it('one refresh of many keys writes the same token and deployer rows as a refresh of each key alone', async () => {
    const ch = env.rt.ch
    // Every token of the world (launched or not: pools, WETH) in a seeded shuffle, and a key that is no token.
    const keys = await queryRows<{ token: string }>(ch, 'SELECT token FROM (SELECT DISTINCT token FROM token_state WHERE chain_id = 4663) ORDER BY cityHash64(token, 7)')
    const tokens = [...keys.map((k) => k.token), '0x00000000000000000000000000000000000000ff']
    const [head] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
    const chainTime = Number(head!.t)
    // Read as soon as written: a newer version of the same key lets a merge drop it. A deployer of
    // several tokens refreshed one by one is written once per token, the same row each time.
    const written = (table: 'token_state' | 'deployer_state', key: string, version: number) =>
      queryRows<Record<string, unknown>>(ch, `SELECT DISTINCT * EXCEPT version FROM ${table} WHERE chain_id = 4663 AND version = {v:UInt64} ORDER BY ${key}`, { v: version })
    const together = nextServingSeq()
    const own = await refreshTokenStates(ch, 4663, { tokens, launched: new Set(), version: together })
    // The deployers the token rows name are the ones token_state holds for those tokens.
    expect([...own].sort()).toEqual([...(await storedDeployersOf(ch, 4663, tokens))].sort())
    const deployers = await refreshDeployerStates(ch, 4663, { deployers: own, chainTime, version: together })
    const tokensTogether = await written('token_state', 'token', together)
    const deployersTogether = await written('deployer_state', 'deployer', together)
    const alone = nextServingSeq()
    for (const t of tokens) await refreshTokenStates(ch, 4663, { tokens: [t], launched: new Set(), version: alone })
    const tokensAlone = await written('token_state', 'token', alone)
    for (const t of tokens) await refreshDeployerStates(ch, 4663, { deployers: await storedDeployersOf(ch, 4663, [t]), chainTime, version: alone })
    expect(tokensTogether.length).toBe(keys.length)
    expect(keys.length).toBeGreaterThan(10)
    expect(tokensAlone).toEqual(tokensTogether)
    expect(deployersTogether.length).toBe(deployers.size)
    expect(deployers.size).toBeGreaterThan(2)
    expect(await written('deployer_state', 'deployer', alone)).toEqual(deployersTogether)
  })

  it('a live batch\'s deployer records, its written rows laid over a read begun before them, equal a read of every deployer once those rows are in', async () => {
    const ch = env.rt.ch
    const [head] = await queryRows<{ t: string }>(ch, 'SELECT toUnixTimestamp(max(timestamp)) AS t FROM chain_blocks WHERE chain_id = 4663')
    const chainTime = Number(head!.t)
    const launched = await queryRows<{ token: string; deployer: string }>(ch, `SELECT token, deployer FROM (${latestTokens}) WHERE launched AND deployer != '' ORDER BY token`)
    const deployers = new Set(launched.map((r) => r.deployer))
    expect(deployers.size).toBeGreaterThan(2)
    // The batch's tokens: every other launched one. Before it, their stored rows said otherwise
    // (far more volume, the other real flag), as rows a batch replaces do.
    const batchTokens = launched.filter((_, i) => i % 2 === 0).map((r) => r.token)
    await ch.command({
      query: `INSERT INTO token_state SELECT * REPLACE (weth_volume + toUInt256('1000000000000000000000000') AS weth_volume, 1 - is_real AS is_real, {v:UInt64} AS version)
              FROM (${latestTokens}) WHERE token IN {tokens:Array(String)}`,
      query_params: { v: nextServingSeq(), tokens: batchTokens },
    })
    // Half the deployers read before the batch's rows are written, the others with the records.
    const early = new Set([...deployers].filter((_, i) => i % 2 === 0))
    const stored = { deployers: early, rows: readDeployerTokens(ch, 4663, early) }
    await stored.rows
    const records = (version: number) => queryRows<Record<string, unknown>>(ch, 'SELECT * EXCEPT version FROM deployer_state WHERE chain_id = 4663 AND version = {v:UInt64} ORDER BY deployer', { v: version })
    // What the stored rows alone make: not the records (the test could fail).
    const staleOnly = nextServingSeq()
    await refreshDeployerStates(ch, 4663, { deployers: early, chainTime, version: staleOnly, stored })

    const overlaid = nextServingSeq()
    const own = await writeTokenStates(ch, 4663, { tokens: batchTokens, launched: new Set(), version: overlaid, candlesThrough: chainTime })
    expect(own.rows?.length).toBe(batchTokens.length)
    await refreshDeployerStates(ch, 4663, { deployers, chainTime, version: overlaid, written: own.rows, stored })
    await own.written
    const fresh = nextServingSeq()
    await refreshDeployerStates(ch, 4663, { deployers, chainTime, version: fresh })
    const freshRecords = await records(fresh)
    expect(freshRecords.length).toBe(deployers.size)
    expect(await records(overlaid)).toEqual(freshRecords)
    expect(await records(staleOnly)).not.toEqual(freshRecords.filter((r) => early.has(r.deployer as string)))
  })

  it('deployer_state counts launches, real tokens and the best volume like a recount', async () => {
    const mismatches = await queryRows(
      env.rt.ch,
      `SELECT d.deployer FROM (SELECT * FROM deployer_state FINAL WHERE launched > 0) AS d
       FULL OUTER JOIN (
         SELECT c.deployer AS deployer, count() AS launched, countIf(tr.token != '') AS real, max(ifNull(a.v, 0)) AS best
         FROM launches AS l INNER JOIN contract_creations AS c ON c.address = l.token
         LEFT JOIN (SELECT DISTINCT token FROM token_real) AS tr ON tr.token = l.token
         LEFT JOIN (SELECT token, sum(weth_in + weth_out) AS v FROM swaps GROUP BY token) AS a ON a.token = l.token
         GROUP BY c.deployer) AS r ON r.deployer = d.deployer
       WHERE d.launched != r.launched OR d.real != r.real OR d.best_volume != r.best
       SETTINGS join_use_nulls = 0`,
    )
    expect(mismatches).toEqual([])
  })

  it('liquidityProviders() (pool_providers by key) equals a recount over liquidity_events', async () => {
    const pools = (await queryRows<{ pool: string }>(env.rt.ch, 'SELECT DISTINCT pool FROM liquidity_events ORDER BY pool')).map((r) => r.pool)
    expect(pools.length).toBeGreaterThan(3)
    const recount = await queryRows<{ pool: string; provider: string }>(
      env.rt.ch,
      `SELECT pool, provider FROM liquidity_events FINAL GROUP BY pool, provider
       HAVING sumIf(liquidity, kind = 'mint') > sumIf(liquidity, kind = 'burn') ORDER BY pool, provider`,
    )
    const served = await liquidityProviders(env.rt.ch, 4663, pools)
    expect([...served].flatMap(([pool, ps]) => ps.map((provider) => ({ pool, provider })))).toEqual(recount)
  })

  it('a batch names exactly the tokens its blocks touched, and their deployers', async () => {
    const last = (await lastServedBatch(env.rt.ch, 4663))!
    expect(last.watermark).toBe(600)
    const named = await queryRows<{ kind: string; key: string }>(
      env.rt.ch,
      `SELECT kind, key FROM serving_changes WHERE chain_id = 4663 AND seq = {seq:UInt64} AND kind != 'batch' ORDER BY kind, key`,
      { seq: last.seq },
    )
    const touched = await queryRows<{ token: string }>(
      env.rt.ch,
      `SELECT DISTINCT token FROM (
         SELECT token FROM swaps WHERE block_number BETWEEN 551 AND 600
         UNION ALL SELECT token FROM erc20_transfers WHERE block_number BETWEEN 551 AND 600
         UNION ALL SELECT address AS token FROM contract_creations WHERE block_number BETWEEN 551 AND 600
         UNION ALL SELECT l.token FROM liquidity_events AS e INNER JOIN launches AS l ON l.pool = e.pool WHERE e.block_number BETWEEN 551 AND 600
         UNION ALL SELECT p.token0 FROM liquidity_events AS e INNER JOIN pools AS p ON p.pool = e.pool WHERE e.block_number BETWEEN 551 AND 600
         UNION ALL SELECT p.token1 FROM liquidity_events AS e INNER JOIN pools AS p ON p.pool = e.pool WHERE e.block_number BETWEEN 551 AND 600)
       ORDER BY token`,
    )
    const tokens = named.filter((n) => n.kind === 'token').map((n) => n.key)
    expect(tokens).toEqual(touched.map((t) => t.token))
    const deployers = await queryRows<{ deployer: string }>(
      env.rt.ch,
      `SELECT DISTINCT deployer FROM contract_creations WHERE address IN {t:Array(String)} ORDER BY deployer`,
      { t: tokens },
    )
    for (const d of deployers) expect(named).toContainEqual({ kind: 'deployer', key: d.deployer })
    // Far fewer than all tokens: the batch is refreshed, not the chain.
    const [all] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT uniqExact(token) AS n FROM token_state')
    expect(tokens.length).toBeLessThan(Number(all!.n))
  })

  it('an API cache keeps the tokens a batch did not touch and reads again the ones it did', async () => {
    let stateReads: string[][] = []
    const counting = countingTokenReads((keys) => stateReads.push(keys))
    const serving = createTokenServing({ ch: counting, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000 })
    const before = await serving.measuredThrough()
    const all = (await queryRows<{ token: string }>(env.rt.ch, `SELECT token FROM (${latestTokens}) WHERE present ORDER BY token`)).map((r) => r.token)
    await serving.tokens(all)
    expect(stateReads.flat().sort()).toEqual(all)
    stateReads = []
    await serving.tokens(all)
    expect(stateReads).toEqual([])

    await env.ingestThrough(620)
    const last = (await lastServedBatch(env.rt.ch, 4663))!
    const changed = (await queryRows<{ key: string }>(
      env.rt.ch,
      `SELECT key FROM serving_changes WHERE chain_id = 4663 AND kind = 'token' AND seq > {after:UInt64} AND seq <= {seq:UInt64}`,
      { after: 0, seq: last.seq },
    )).map((r) => r.key)
    expect(changed.length).toBeGreaterThan(0)
    stateReads = []
    const records = await serving.tokens(all)
    expect(serving.measuredThrough()).toBe(620)
    expect(before).toBeLessThan(620)
    const reread = new Set(stateReads.flat())
    const touchedSince = await queryRows<{ key: string }>(
      env.rt.ch,
      `SELECT DISTINCT key FROM serving_changes WHERE chain_id = 4663 AND kind = 'token' AND watermark > 600`,
    )
    expect([...reread].sort()).toEqual(touchedSince.map((r) => r.key).filter((k) => all.includes(k)).sort())
    expect(reread.size).toBeLessThan(all.length)
    // And what was read again is current.
    const [fresh] = await queryRows<{ token: string; swaps: string }>(
      env.rt.ch,
      `SELECT token, count() AS swaps FROM swaps FINAL WHERE token IN {t:Array(String)} GROUP BY token ORDER BY token LIMIT 1`,
      { t: [...reread] },
    )
    if (fresh) expect(records.get(fresh.token)!.swaps).toBe(Number(fresh.swaps))
  })

  it('the kept tokens a batch changed are read again together at its sync: requests one key at a time after it read nothing of their own', async () => {
    let stateReads: string[][] = []
    const serving = createTokenServing({ ch: countingTokenReads((keys) => stateReads.push(keys)), watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 10_000 })
    const all = (await queryRows<{ token: string }>(env.rt.ch, `SELECT token FROM (${latestTokens}) WHERE present ORDER BY token`)).map((r) => r.token)
    await serving.tokens(all)
    const from = serving.measuredThrough()!
    await env.ingestThrough(from + 20)
    const touched = (await queryRows<{ key: string }>(
      env.rt.ch,
      `SELECT DISTINCT key FROM serving_changes WHERE chain_id = 4663 AND kind = 'token' AND watermark > {from:UInt64}`,
      { from },
    )).map((r) => r.key).filter((k) => all.includes(k))
    expect(touched.length).toBeGreaterThan(1)
    stateReads = []
    // Each asked alone, as requests ask: the first one's sync read them all, the rest join that read.
    const records = await Promise.all(touched.map((t) => serving.token(t)))
    expect(serving.measuredThrough()).toBe(from + 20)
    expect(stateReads).toHaveLength(1)
    expect([...stateReads[0]!].sort()).toEqual([...touched].sort())
    // And what was read again is current.
    const fresh = await queryRows<{ token: string; swaps: string }>(
      env.rt.ch,
      'SELECT token, count() AS swaps FROM swaps FINAL WHERE token IN {t:Array(String)} GROUP BY token',
      { t: touched },
    )
    for (const f of fresh) expect(records[touched.indexOf(f.token)]!.swaps).toBe(Number(f.swaps))
  })

  it('API processes sharing a Redis read a token from ClickHouse once, and never share a row older than its last change', async () => {
    const store = createRedisStore(requireRedisUrl())
    const reads = { a: [] as string[], b: [] as string[] }
    const a = createTokenServing({ ch: countingTokenReads((k) => reads.a.push(...k)), watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000, store })
    const b = createTokenServing({ ch: countingTokenReads((k) => reads.b.push(...k)), watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000, store })
    try {
      const all = (await queryRows<{ token: string }>(env.rt.ch, `SELECT token FROM (${latestTokens}) WHERE present ORDER BY token LIMIT 200`)).map((r) => r.token)
      await a.tokens(all)
      // Sharing is written in the background: wait until every row a read is in the store.
      const [{ id }] = await queryRows<{ id: string }>(env.rt.ch, 'SELECT id FROM serving_identity LIMIT 1') as [{ id: string }]
      await until('a\'s rows shared', async () => ((await Promise.all(all.map((t) => store.get(sharedRowsPrefix(id, 4663, 'token') + t)))).every((v) => v !== null) ? true : undefined))
      const fromB = await b.tokens(all)
      expect(reads.a.length).toBe(all.length)
      expect(reads.b).toEqual([])
      expect([...fromB.keys()].sort()).toEqual(all)

      await env.ingestThrough(env.processor.watermark() + 15)
      const last = (await lastServedBatch(env.rt.ch, 4663))!
      const changed = new Set(
        (await queryRows<{ key: string }>(env.rt.ch, `SELECT DISTINCT key FROM serving_changes WHERE kind = 'token' AND seq = {seq:UInt64}`, { seq: last.seq })).map((r) => r.key),
      )
      const touched = all.filter((t) => changed.has(t))
      expect(touched.length).toBeGreaterThan(0)
      reads.b = []
      const after = await b.tokens(all)
      // Only what changed is read again: from the engine, or from the store when another process
      // (the embedded API's, re-reading its kept rows at the batch) shared it since the change.
      expect(reads.b.filter((t) => !changed.has(t))).toEqual([])
      // And no row given predates its change.
      const fresh = await queryRows<{ token: string; swaps: string }>(env.rt.ch, 'SELECT token, count() AS swaps FROM swaps FINAL WHERE token IN {t:Array(String)} GROUP BY token', { t: touched })
      for (const t of touched) expect(after.get(t)?.swaps ?? 0, t).toBe(Number(fresh.find((f) => f.token === t)?.swaps ?? 0))
    } finally {
      await store.close()
    }
  })

  it('the leaderboard sorts no deployers per batch: its top is read once and kept from the deployers a batch names', async () => {
    const tops: string[] = []
    const counted = watchedEngine(env.rt.ch, 'query', (args) => {
      if (/FROM deployer_state FINAL[^]*ORDER BY score/.test(args.query)) tops.push(args.query)
    })
    const s = createTokenServing({ ch: counted, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000 })
    // What a fresh ranking over deployer_state says (the real client, not counted).
    const fresh = async () =>
      (await queryRows<{ deployer: string }>(
        env.rt.ch,
        'SELECT deployer FROM deployer_state FINAL WHERE chain_id = 4663 AND launched > 0 ORDER BY score DESC, real DESC, launched DESC, deployer LIMIT 10',
      )).map((r) => r.deployer)
    const check = async () => {
      const board = await s.leaderboard(10)
      expect(await s.leaderboard(10)).toBe(board) // kept for the batch
      const want = await fresh()
      expect(board.deployers.map((d) => d.deployer)).toEqual(want)
      return want
    }
    expect((await check()).length).toBe(10)
    expect(tops).toHaveLength(1) // the top, read once
    const before = env.processor.watermark()
    await env.ingestThrough(before + 30)
    const named = await queryRows<{ n: string }>(
      env.rt.ch,
      "SELECT count() AS n FROM serving_changes WHERE chain_id = 4663 AND kind = 'deployer' AND watermark > {w:UInt64}",
      { w: before },
    )
    expect(Number(named[0]!.n)).toBeGreaterThan(0)
    await check()
    expect(tops).toHaveLength(1)
  })

  it('a data dir from before the serving tables gets them built once at start, and /stats equals the raw tables', async () => {
    await env.processor.stop()
    for (const t of ['token_state', 'deployer_state', 'serving_changes', 'chain_totals', 'chain_traders']) await env.rt.ch.command({ query: `TRUNCATE TABLE ${t}` })
    const processor = createChainProcessor({
      ch: env.rt.ch, bus: env.rt.bus, logger: env.rt.logger, metrics: env.rt.metrics, chainId: 4663, follow: followed4663(env.rt.config),
      onAdvance: (b, seq) => env.api.watermarks.advance(4663, b, seq),
    })
    await processor.start()
    try {
      const res = await env.api.app.inject({ method: 'GET', url: '/stats' })
      const [stats] = res.json().data.chains
      const [raw] = await queryRows<{ swaps: string; traders: string; tokens: string; transfers: string }>(
        env.rt.ch,
        'SELECT (SELECT count() FROM swaps FINAL) AS swaps, (SELECT uniqExact(trader) FROM swaps) AS traders, (SELECT uniqExact(token) FROM swaps) AS tokens, (SELECT count() FROM erc20_transfers FINAL) AS transfers',
      )
      expect(stats).toMatchObject({ measured_through_block: processor.watermark(), swaps: Number(raw!.swaps), unique_traders: Number(raw!.traders), tokens_traded: Number(raw!.tokens), transfers: Number(raw!.transfers) })
      const [rebuilt] = await queryRows<{ n: string }>(env.rt.ch, `SELECT count() AS n FROM (${latestTokens}) WHERE present`)
      expect(Number(rebuilt!.n)).toBeGreaterThan(20)
    } finally {
      await processor.stop()
    }
  })

  it('deployers whose tokens turn idle are refreshed although no block touched them', async () => {
    const last = (await lastServedBatch(env.rt.ch, 4663))!
    const later = last.chainTime + DEAD_AFTER_IDLE_SECONDS + 3600
    const r = await refreshServingState(env.rt.ch, 4663, { tokens: new Set(), launched: new Set(), traders: new Set(), tradedTokens: new Set() }, { watermark: last.watermark, chainTime: later, scope: { kind: 'batch', fromBlock: last.watermark + 1 }, watermarkHash: 'idle-check' })
    expect(r.tokens).toBe(0)
    expect(r.deployers).toBeGreaterThan(0)
    // Every launched token is idle 73 h later (none traded since): dead equals launched.
    const [d] = await queryRows<{ launched_sum: string; dead_sum: string }>(
      env.rt.ch,
      'SELECT sum(launched) AS launched_sum, sum(dead) AS dead_sum FROM deployer_state FINAL WHERE launched > 0',
    )
    expect(Number(d!.launched_sum)).toBeGreaterThan(0)
    expect(d!.dead_sum).toBe(d!.launched_sum)
  })
  it('the leaderboard and the totals read deployer_state\'s count once between them for a batch, and agree with a recount', async () => {
    let counts = 0
    const counted = watchedEngine(env.rt.ch, 'query', (args) => {
      if (/SELECT count\(\)[^]*FROM deployer_state FINAL/.test(args.query)) counts++
    })
    const s = createTokenServing({ ch: counted, watermarks: env.api.watermarks, logger: env.rt.logger, maxEntries: 1_000 })
    const [board, totals] = await Promise.all([s.leaderboard(10), s.totals()])
    expect(await s.leaderboard(10)).toBe(board) // kept for the batch
    expect(counts).toBe(1)
    const [recount] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT count() AS n FROM deployer_state FINAL WHERE chain_id = 4663 AND launched > 0')
    expect(board.total).toBe(Number(recount!.n))
    expect(totals.deployers).toBe(board.total)
    expect(board.total).toBeGreaterThan(0)
  })
})

// Last: it takes a token away from the world the tests above read.
describe('a rollback that takes a token\'s creation and launch away', () => {
  it('its deployer\'s record no longer counts it, though the token\'s older rows still name the deployer', async () => {
    const ch = env.rt.ch
    const [pick] = await queryRows<{ deployer: string; token: string; launches: string }>(
      ch,
      `SELECT deployer, min(token) AS token, count() AS launches FROM (${latestTokens}) WHERE present AND created AND launched
       GROUP BY deployer HAVING launches >= 2 ORDER BY deployer LIMIT 1`,
    )
    expect(pick, 'a deployer with two launches').toBeDefined()
    const recorded = async () => Number((await queryRows<{ launched: string }>(ch, 'SELECT launched FROM deployer_state WHERE chain_id = 4663 AND deployer = {d:String} ORDER BY version DESC LIMIT 1', { d: pick!.deployer }))[0]!.launched)
    expect(await recorded()).toBe(Number(pick!.launches))
    // What a rollback removes of the token (chain-rollback.ts), then its serving refresh.
    await ch.command({ query: 'DELETE FROM contract_creations WHERE chain_id = 4663 AND address = {t:String}', query_params: { t: pick!.token } })
    await ch.command({ query: 'DELETE FROM launches WHERE chain_id = 4663 AND token = {t:String}', query_params: { t: pick!.token } })
    const last = (await lastServedBatch(ch, 4663))!
    const head = await blockAt(ch, 4663, last.watermark)
    await refreshServingState(ch, 4663, { tokens: new Set([pick!.token]), launched: new Set(), traders: new Set(), tradedTokens: new Set() }, { watermark: last.watermark, chainTime: head.time, watermarkHash: head.hash, scope: { kind: 'rollback' } })
    const [token] = await queryRows<{ present: number }>(ch, `SELECT present FROM (${latestTokens}) WHERE token = {t:String}`, { t: pick!.token })
    expect(Number(token!.present)).toBe(0)
    expect(await recorded()).toBe(Number(pick!.launches) - 1)
  })

  it('a tombstone written before tombstones named the deployer is mended by the audit\'s repair of the deployer', async () => {
    const ch = env.rt.ch
    const [pick] = await queryRows<{ deployer: string; token: string; launches: string }>(
      ch,
      `SELECT deployer, min(token) AS token, count() AS launches FROM (${latestTokens}) WHERE present AND created AND launched
       GROUP BY deployer HAVING launches >= 2 ORDER BY deployer DESC LIMIT 1`,
    )
    expect(pick, 'another deployer with two launches').toBeDefined()
    const recorded = async () => Number((await queryRows<{ launched: string }>(ch, 'SELECT launched FROM deployer_state WHERE chain_id = 4663 AND deployer = {d:String} ORDER BY version DESC LIMIT 1', { d: pick!.deployer }))[0]!.launched)
    const last = (await lastServedBatch(ch, 4663))!
    const head = await blockAt(ch, 4663, last.watermark)
    await ch.command({ query: 'DELETE FROM contract_creations WHERE chain_id = 4663 AND address = {t:String}', query_params: { t: pick!.token } })
    await ch.command({ query: 'DELETE FROM launches WHERE chain_id = 4663 AND token = {t:String}', query_params: { t: pick!.token } })
    // The tombstone the rollback's refresh wrote before tombstones named the deployer, and the record it left.
    await ch.command({
      query: `INSERT INTO token_state SELECT * REPLACE (0 AS present, 0 AS created, 0 AS launched, '' AS deployer, {v:UInt64} AS version) FROM token_state
              WHERE chain_id = 4663 AND token = {t:String} ORDER BY version DESC LIMIT 1`,
      query_params: { t: pick!.token, v: nextServingSeq() },
    })
    await refreshDeployerStates(ch, 4663, { deployers: new Set([pick!.deployer]), chainTime: head.time, version: nextServingSeq() })
    expect(await recorded()).toBe(Number(pick!.launches))
    await deployerStateCheck.repair!(ch, 4663, [pick!.deployer])
    expect(await recorded()).toBe(Number(pick!.launches) - 1)
  })
})
