import { createClickHouse, queryRows, type ClickHouseClient } from '../core/clickhouse.ts'
import { FIFO_LEG_TYPE, fifoFold, fifoInitialState } from '../products/wallet/fifo-sql.ts'
import { createReceiptServing } from '../products/wallet/receipt-serving.ts'
import { createWatermarks } from '../core/serving/watermarks.ts'
import { foldPairs, type WalletToken } from '../products/wallet/fifo-refresh.ts'
import { migrate } from '../sql/migrate.ts'
import { tempDir } from '../test/setup/temp.ts'
import type { BenchResult } from './result.ts'

/**
 * Wallet receipts (issue 12). Data built in ClickHouse with INSERT … SELECT … FROM numbers() into
 * `swaps` (so the legs view, the last-swap marks and every other swaps view run as in production),
 * then folded by the pipeline's own fold (foldPairs).
 *  1. receipts of all 100 roster wallets (10 tokens × 100 legs each), cold (a fresh serving: roster
 *     and receipt read from ClickHouse) and warm, p50/p99;
 *  2. one wallet's receipt as its legs grow 1,000 → 10,000 → 100,000 (10× and 100×; 20 tokens),
 *     cold p50/p99, against the named baseline: the same wallet's realized PnL folded from its whole
 *     leg history in ClickHouse at request time (fifoFold over wallet_legs, no stored state).
 */
const CHAIN = 4663
const T0 = 1_767_225_600 // 2026-01-01

const addr = (expr: string) => `concat('0x', leftPad(lower(hex(${expr})), 40, '0'))`

/**
 * Swaps of `legs` legs: wallet id, token id and sequence within the pair from n. Two buys, then a
 * sell of a little more than both (a full exit, sometimes with an unmatched rest), so a wallet's
 * open lots stay few, as a trader's do.
 */
async function insertSwaps(ch: ClickHouseClient, o: { legs: number; firstBlock: number; wallet: string; token: string; seq: string }): Promise<void> {
  const buy = `(${o.seq}) % 3 != 2`
  await ch.command({
    query: `INSERT INTO swaps (chain_id, block_number, log_index, tx_hash, pool, protocol, token, trader, token_in, token_out, weth_in, weth_out, block_time)
      SELECT ${CHAIN}, ${o.firstBlock} + number, 0, concat('0x', lower(hex(number + ${o.firstBlock}))), concat('pool-', ${o.token}), 'v2', ${o.token}, ${o.wallet},
             if(${buy}, 0, toUInt256(2200000000000000000) + (number % 11) * 1000000007),
             if(${buy}, toUInt256(1000000000000000000) + (number % 7) * 100000000000000000, 0),
             if(${buy}, toUInt256(10000000000000000) + (number * 13 % 1000) * 10000000000007, 0),
             if(${buy}, 0, toUInt256(15000000000000000) + (number * 17 % 1000) * 10000000000009),
             toDateTime(${T0} + number * 12, 'UTC')
      FROM numbers(${o.legs})`,
    clickhouse_settings: { max_insert_block_size: '1000000' },
  })
}

/** The baseline: a wallet's realized PnL folded from its whole leg history per request (no stored state). */
async function foldWholeHistory(ch: ClickHouseClient, wallet: string): Promise<string> {
  const rows = await queryRows<{ r: string }>(
    ch,
    `SELECT toString(sum(f.1.2)) AS r FROM (
       SELECT ${fifoFold(`arrayMap(x -> CAST((x.2, x.3, x.4, x.5), '${FIFO_LEG_TYPE}'), arraySort(x -> x.1, groupArray((block_number * 16777216 + log_index, side, qty, cost, toUInt32(block_time)))))`, fifoInitialState())} AS f
       FROM wallet_legs WHERE chain_id = ${CHAIN} AND wallet = {w:String} GROUP BY token)`,
    { w: wallet },
  )
  return rows[0]!.r
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!
}
const round = (x: number) => Math.round(x * 100) / 100

async function time<T>(f: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now()
  const r = await f()
  return [performance.now() - t, r]
}

export async function benchReceipts(): Promise<BenchResult[]> {
  const dir = tempDir()
  const ch = await createClickHouse({ DATA_DIR: dir.path } as never)
  await migrate(ch)
  const watermarks = createWatermarks(ch, [CHAIN], 0)
  const results: BenchResult[] = []
  try {
    // ETH/USD candles over the claims' 30 days, and the roster.
    await ch.command({ query: `INSERT INTO price_candles SELECT 'ETH/USD', toDateTime(${T0} + number * 60, 'UTC'), 3000 + number % 50, 3100 + number % 50, 2900 + number % 50, 3000 + number % 40 FROM numbers(${40 * 1440})` })
    await ch.command({ query: `INSERT INTO leaderboard_claims SELECT toDateTime(${T0 + 30 * 86_400}, 'UTC'), 'bench-board', ${addr('number')}, number + 1, 1000 * (100 - number) FROM numbers(100)` })
    // 1. The roster: 100 wallets × 10 tokens × 100 legs.
    await insertSwaps(ch, { legs: 100_000, firstBlock: 1, wallet: addr('number % 100'), token: addr('1000 + intDiv(number, 100) % 10'), seq: 'intDiv(number, 1000)' })
    const pairs = (await queryRows<{ wallet: string; token: string }>(ch, 'SELECT DISTINCT wallet, token FROM wallet_legs')).map((r): WalletToken => [r.wallet, r.token])
    const [foldMs] = await time(() => foldPairs(ch, CHAIN, pairs, 0))
    const roster = Array.from({ length: 100 }, (_, i) => '0x' + i.toString(16).padStart(40, '0'))
    const cold: number[] = []
    for (const w of roster) {
      const serving = createReceiptServing({ ch, watermarks, maxEntries: 1000 })
      const [ms, r] = await time(() => serving.receipt(w))
      if (!r.found || r.sells === 0) throw new Error(`bench data: ${w} has no receipt`)
      cold.push(ms)
    }
    const serving = createReceiptServing({ ch, watermarks, maxEntries: 1000 })
    for (const w of roster) await serving.receipt(w)
    const warm: number[] = []
    for (const w of roster) warm.push((await time(() => serving.receipt(w)))[0])
    // Baseline on every tenth wallet: its realized PnL folded from its whole history per request.
    const base: number[] = []
    for (let i = 0; i < roster.length; i += 10) {
      const [ms, r] = await time(() => foldWholeHistory(ch, roster[i]!))
      if (r !== (await serving.receipt(roster[i]!)).realized_net_wei) throw new Error('baseline and receipt disagree')
      base.push(ms)
    }
    results.push({
      name: 'receipts: all 100 roster wallets (10 tokens × 100 legs each, 100,000 legs), cold p50/p99',
      baseline: 'realized PnL folded from the wallet\'s whole leg history per request (fifoFold over wallet_legs, no stored state), median of 10 wallets',
      ours: { value: round(pct(cold, 50)), unit: `ms p50 cold (p99 ${round(pct(cold, 99))} ms; warm from the per-wallet cache p50 ${round(pct(warm, 50))} ms, p99 ${round(pct(warm, 99))} ms)` },
      base: { value: round(pct(base, 50)), unit: 'ms' },
      ratio: pct(base, 50) / pct(cold, 50),
      notes: `ratio is baseline median / our cold p50; folding all 100,000 legs of the 1,000 wallet-tokens from empty state took ${Math.round(foldMs)} ms (the pipeline folds only each batch's legs)`,
    })

    // 2. One wallet growing 10× and 100×: 1,000, 10,000, 100,000 legs over 20 tokens.
    const whale = '0x' + 'ab'.repeat(20)
    await ch.command({ query: `INSERT INTO leaderboard_claims SELECT toDateTime(${T0 + 60 * 86_400}, 'UTC'), 'bench-board-2', wallet, rank, claimed_pnl_usd_30d FROM leaderboard_claims WHERE source = 'bench-board' AND rank < 100` })
    await ch.command({ query: `INSERT INTO leaderboard_claims VALUES (toDateTime(${T0 + 60 * 86_400}, 'UTC'), 'bench-board-2', '${whale}', 100, 50000)` })
    let have = 0
    let block = 1_000_000
    for (const legs of [1_000, 10_000, 100_000]) {
      const add = legs - have
      await insertSwaps(ch, { legs: add, firstBlock: block, wallet: `'${whale}'`, token: addr('2000 + number % 20'), seq: `intDiv(number + ${have}, 20)` })
      block += add
      have = legs
      const [fold] = await time(() => foldPairs(ch, CHAIN, Array.from({ length: 20 }, (_, i): WalletToken => [whale, '0x' + (2000 + i).toString(16).padStart(40, '0')]), 0))
      const ours: number[] = []
      let realized = ''
      for (let i = 0; i < 30; i++) {
        const s = createReceiptServing({ ch, watermarks, maxEntries: 10 })
        const [ms, r] = await time(() => s.receipt(whale))
        ours.push(ms)
        realized = r.realized_net_wei!
      }
      // Baseline: fold the whole history per request (no stored state).
      const base: number[] = []
      for (let i = 0; i < (legs >= 100_000 ? 2 : 5); i++) {
        const [ms, r] = await time(() => foldWholeHistory(ch, whale))
        if (r !== realized) throw new Error(`baseline ${r} != receipt ${realized}`)
        base.push(ms)
      }
      results.push({
        name: `receipts: one wallet with ${legs.toLocaleString('en-US')} legs (20 tokens), cold p50/p99 of 30`,
        baseline: 'its realized PnL folded from the whole leg history in ClickHouse per request (fifoFold over wallet_legs, no stored state), median',
        ours: { value: round(pct(ours, 50)), unit: `ms p50 (p99 ${round(pct(ours, 99))} ms)` },
        base: { value: round(pct(base, 50)), unit: 'ms' },
        ratio: pct(base, 50) / pct(ours, 99),
        notes: `ratio is baseline median / our p99; folding the ${add.toLocaleString('en-US')} new legs onto the stored state took ${Math.round(fold)} ms`,
      })
    }
  } finally {
    watermarks.stop()
    await ch.close()
    dir.cleanup()
  }
  return results
}
