import { createRuntime } from '../../bin/runtime.ts'
import { loadConfig } from '../../core/config.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { tupleParam } from '../../pipelines/social/grade-reads.ts'
import { mkdtempSync } from 'node:fs'
const rt = await createRuntime(loadConfig({ DATA_DIR: mkdtempSync('/tmp/exp/d-'), LOG_LEVEL: 'silent' }), 'bench')
const ch = rt.ch
await ch.command({ query: `INSERT INTO solana_trades (wallet, mint, block_time, signature, side, slot, token_qty, quote, quote_amount, usd_micro, sol_usd_close)
  SELECT concat('W', toString(number % 1000)), concat('M', toString(number % 3)), toDateTime(1750000000 + intDiv(number, 1000) * 60), toString(number), 'buy', number, 1, 'USD', 1, 1, 0 FROM numbers(2000000)` })
await ch.command({ query: 'OPTIMIZE TABLE solana_trades FINAL' })
const pairs: [string, string][] = Array.from({ length: 1000 }, (_, i) => [`W${i}`, `M${i % 3}`])
const wallets = [...new Set(pairs.map((p) => p[0]))]
const PAIRS = 'wallet IN {wallets:Array(String)} AND (wallet, mint) IN {pairs:Array(Tuple(String, String))}'
const q = `SELECT DISTINCT wallet, mint, block_time, slot, signature, side, token_qty, usd_micro FROM solana_trades WHERE ${PAIRS} AND block_time >= toDateTime({from:UInt32}, 'UTC')`
const from = 1750000000 + 1990 * 60
for (const r of await queryRows<any>(ch, `EXPLAIN indexes = 1 ${q}`, { wallets, pairs: tupleParam(pairs), from })) console.log(r.explain)
const t0 = performance.now(); const rows = await queryRows(ch, q, { wallets, pairs: tupleParam(pairs), from }); console.log(rows.length, (performance.now() - t0).toFixed(1), 'ms')
await rt.close()
