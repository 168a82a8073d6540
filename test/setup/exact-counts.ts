import { randomBytes } from 'node:crypto'
import { afterAll, expect } from 'vitest'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { requireKafkaBrokers } from './services.ts'
import { runSvc } from './svc-process.ts'
import { tempDir } from './temp.ts'
import { independentCounts } from './sim-counts.ts'
import { refFold, refLegsByPair } from './fifo-reference.ts'

/** Blocks the exactly-once tests ingest through their crashes. */
const EXACT_BLOCKS = 600

/**
 * A chain-4663 pipeline run through crashes (call inside a describe: it registers its cleanup):
 * `publish` puts the simulator's first EXACT_BLOCKS blocks on Kafka under a namespace of its own,
 * `pipeline` runs `svc pipeline` to the last of them on one data dir with the settings given
 * (PIPELINE_BATCH_BLOCKS, SVC_FAULT), `expectExact` checks that data dir's counts at the end.
 */
export function exactlyOnceRun() {
  const data = tempDir()
  const simData = tempDir()
  let ch: ClickHouseClient | undefined
  afterAll(async () => {
    await ch?.close()
    data.cleanup()
    simData.cleanup()
  })
  const env = { KAFKA_BROKERS: requireKafkaBrokers(), BUS_NAMESPACE: `t${randomBytes(4).toString('hex')}`, LOG_LEVEL: 'info' }
  return {
    async publish(): Promise<void> {
      const sim = await runSvc(['sim', '--until', String(EXACT_BLOCKS)], { ...env, DATA_DIR: simData.path })
      expect(sim.code, sim.stderr).toBe(0)
    },
    pipeline: (settings: Record<string, string>) => runSvc(['pipeline', 'chain-4663', '--exit-at-block', String(EXACT_BLOCKS)], { ...env, ...settings, DATA_DIR: data.path }),
    async expectExact(): Promise<void> {
      ch = await createClickHouse({ DATA_DIR: data.path } as never)
      await expectExactCounts(ch)
    },
  }
}

/**
 * Every count of a chain ingested through crashes equals an independent count over the
 * simulator's raw rows: raw tables, views, chain totals, holder balances, FIFO state.
 */
export async function expectExactCounts(ch: ClickHouseClient): Promise<void> {
  const one = async (q: string) => (await queryRows<{ v: string }>(ch, q))[0]!.v
  const expected = independentCounts(EXACT_BLOCKS)
  expect(expected.swaps).toBeGreaterThan(100)

  // Raw tables: as many rows as the chain has events, and no key twice.
  expect(Number(await one('SELECT count() AS v FROM chain_blocks'))).toBe(EXACT_BLOCKS)
  expect(Number(await one('SELECT count() AS v FROM swaps'))).toBe(expected.swaps)
  expect(Number(await one('SELECT uniqExact(block_number, log_index) AS v FROM swaps'))).toBe(expected.swaps)
  expect(Number(await one('SELECT count() AS v FROM erc20_transfers'))).toBe(expected.transfers)
  expect(Number(await one('SELECT count() AS v FROM contract_creations'))).toBe(expected.creations)

  // The materialized view: per-token aggregates equal a recount over the raw rows.
  const mismatches = await queryRows(
    ch,
    `SELECT a.token, a.swaps, r.swaps, a.vol, r.vol, a.traders, r.traders
     FROM (SELECT token, sum(swaps) AS swaps, sum(weth_volume) AS vol, uniqExactMerge(traders) AS traders FROM token_activity GROUP BY token) AS a
     FULL OUTER JOIN (SELECT token, count() AS swaps, sum(weth_in + weth_out) AS vol, uniqExact(trader) AS traders FROM swaps FINAL GROUP BY token) AS r
     USING (token)
     WHERE a.swaps != r.swaps OR a.vol != r.vol OR a.traders != r.traders`,
  )
  expect(mismatches).toEqual([])
  expect(Number(await one('SELECT sum(swaps) AS v FROM token_activity'))).toBe(expected.swaps)
  // The chain totals (a row a batch, migration 032): the killed batches' rows count once.
  const [totals] = await queryRows<Record<string, string>>(ch, 'SELECT sum(blocks) AS blocks, sum(swaps) AS swaps, sum(transfers) AS transfers, sum(creations) AS creations, toString(sum(weth_volume)) AS volume FROM chain_totals')
  expect(totals).toEqual({
    blocks: String(EXACT_BLOCKS), swaps: String(expected.swaps), transfers: String(expected.transfers), creations: String(expected.creations),
    volume: await one('SELECT toString(sum(weth_in + weth_out)) AS v FROM swaps FINAL'),
  })

  // Holder balances (migration 018; the crashed batches' transfers went in before their
  // swaps, so they were inserted twice): every balance, every per-block delta and every
  // transfer link equals a recount over the raw transfers.
  const recount = (keys: string, extra = '') =>
    `SELECT ${keys}, sum(d) AS v FROM
       (SELECT token, block_number, to_address AS wallet, toInt256(value) AS d FROM erc20_transfers FINAL
        UNION ALL SELECT token, block_number, from_address AS wallet, -toInt256(value) AS d FROM erc20_transfers FINAL)
     WHERE wallet != '0x0000000000000000000000000000000000000000' ${extra} GROUP BY ${keys} HAVING v != 0`
  const holderMismatches = await queryRows(
    ch,
    `SELECT token, wallet FROM (SELECT token, wallet, sum(balance) AS v FROM holder_balances GROUP BY token, wallet HAVING v != 0) AS h
     FULL OUTER JOIN (${recount('token, wallet')}) AS r USING (token, wallet) WHERE h.v != r.v SETTINGS join_use_nulls = 0`,
  )
  expect(holderMismatches).toEqual([])
  const deltaMismatches = await queryRows(
    ch,
    `SELECT token, block_number, wallet FROM (SELECT token, block_number, wallet, sum(delta) AS v FROM holder_deltas GROUP BY token, block_number, wallet HAVING v != 0) AS h
     FULL OUTER JOIN (${recount('token, block_number, wallet')}) AS r USING (token, block_number, wallet) WHERE h.v != r.v SETTINGS join_use_nulls = 0`,
  )
  expect(deltaMismatches).toEqual([])
  expect(Number(await one('SELECT count() AS v FROM (SELECT token, wallet FROM holder_balances GROUP BY token, wallet HAVING sum(balance) != 0)'))).toBeGreaterThan(100)
  expect(Number(await one('SELECT sum(transfers) AS v FROM token_wallet_links'))).toBe(
    2 * Number(await one(`SELECT count() AS v FROM erc20_transfers FINAL WHERE from_address != to_address AND from_address != '0x0000000000000000000000000000000000000000' AND to_address != '0x0000000000000000000000000000000000000000'`)),
  )
  // FIFO state (issue 12): every wallet-token's state equals a FIFO over its raw swaps, and each
  // matched sell is there once, though batches were killed before their fold and re-formed.
  const swaps = await queryRows<{ trader: string; token: string; token_in: string; token_out: string; weth_in: string; weth_out: string; t: number }>(
    ch,
    'SELECT trader, token, token_in, token_out, weth_in, weth_out, toUnixTimestamp(block_time) AS t FROM swaps FINAL WHERE token_in != token_out ORDER BY block_number, log_index',
  )
  const legs = refLegsByPair(swaps, (s) => s.t)
  const states = await queryRows<{ k: string; s: string; legs: string }>(ch, "SELECT concat(wallet, '/', token) AS k, toString((state.realized, state.sells, state.winning_sells, state.unmatched_qty, state.spent, state.received)) AS s, legs FROM fifo_state FINAL")
  expect(states.length).toBe(legs.size)
  let sells = 0
  for (const st of states) {
    const l = legs.get(st.k)!
    const { state } = refFold(l)
    expect(Number(st.legs), st.k).toBe(l.length)
    expect(st.s, st.k).toBe(`(${state.realized},${state.sells},${state.winningSells},${state.unmatchedQty},${state.spent},${state.received})`)
    sells += state.sells
  }
  expect(sells).toBeGreaterThan(50)
  expect(Number(await one('SELECT count() AS v FROM fifo_sells'))).toBe(sells)
}
