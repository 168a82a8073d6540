import { createHash } from 'node:crypto'
import { createRuntime, type Runtime } from '../bin/runtime.ts'
import { createSolanaServing } from '../products/wallet/solana-serving.ts'
import { loadConfig } from '../core/config.ts'
import { queryRows } from '../core/clickhouse.ts'
import { FIFO_LEG_TYPE, fifoFold, fifoInitialState, fifoOpen } from '../products/wallet/fifo-sql.ts'
import { createSolanaProcessor } from '../pipelines/process/solana-processor.ts'
import type { SolanaTradeRow } from '../pipelines/process/solana/usd-leg-step.ts'
import { lamportsToMicroUsd, priceE8, type SolanaTrade, type SolUsdCandle } from '../pipelines/records/solana.ts'
import { base58 } from '../pipelines/sim/base58.ts'
import { SOLANA_UNIVERSE_SIZE } from '../pipelines/sim/solana-sim.ts'
import { TOPICS } from '../core/bus/topics.ts'
import { tempDir } from '../test/setup/temp.ts'
import type { BenchResult } from './result.ts'

/** The default size: small enough for a shared machine; `npm run bench -- solana-full` runs 45,504 wallets. */
export const SOLANA_BENCH_WALLETS = 1_000
const TRADES_PER_WALLET = 200
const T0 = 1_750_000_200
/** One trade per wallet per round, a round every 10 minutes (every wallet trades in every round, in wallet order). */
const ROUND_SECONDS = 600
const BATCH = 5_000
const MINTS = 3

const CLOSE = (start: number) => `${150 + ((start / 300) % 40)}.${String((start / 300) % 97).padStart(2, '0')}`

function candle(start: number): SolUsdCandle {
  const c = CLOSE(start)
  return { pair: 'SOL/USD', start, open: c, high: c, low: c, close: c }
}

/**
 * The trade of wallet `w` in round `r`: per mint a cycle of buy 1000, buy 500, sell 600 (a
 * partial exit), sell 900 (the rest); half the legs in SOL, half in USD.
 */
function tradeOf(wallets: string[], mints: string[], w: number, r: number): SolanaTrade {
  const t = T0 + r * ROUND_SECONDS + Math.floor((w * ROUND_SECONDS) / wallets.length)
  const step = Math.floor(r / MINTS) % 4
  const side = step < 2 ? 'buy' : 'sell'
  const qty = [1000, 500, 600, 900][step]!
  const usd = BigInt(qty * (20 + ((w * 7 + r * 13) % 50))) * 1000n
  const inSol = (w + r) % 2 === 0
  return {
    signature: base58(createHash('sha512').update(`bench/${w}/${r}`).digest()),
    slot: 340_000_000 + (t - T0) * 2,
    block_time: t,
    wallet: wallets[w]!,
    mint: mints[r % MINTS]!,
    side,
    token_qty: String(qty),
    quote: inSol ? 'SOL' : 'USD',
    // A SOL amount that is worth about `usd` micro-USD at the window's close.
    quote_amount: inSol ? ((usd * 100_000_000_000n) / priceE8(CLOSE(t - (t % 300)))).toString() : usd.toString(),
  }
}

function rowOf(t: SolanaTrade): SolanaTradeRow {
  if (t.quote === 'USD') return { ...t, usd_micro: t.quote_amount, sol_usd_close: '0' }
  const close = CLOSE(t.block_time - (t.block_time % 300))
  return { ...t, usd_micro: lamportsToMicroUsd(BigInt(t.quote_amount), priceE8(close)).toString(), sol_usd_close: close }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!
}

/**
 * Solana ingest: `wallets` × 200 trades published on the in-process bus in block-time order and
 * consumed by the Solana processor (parse, value each SOL leg at its candle, insert with the
 * batch token, activity and progress views, FIFO states folded forward per touched wallet and
 * mint) — against a bare insert of the same rows, in batches of the same size, into a copy of
 * solana_trades without views, deduplication or FIFO. Then receipts read cold (each wallet once)
 * through the Solana serving, against folding the wallet's legs from the raw trades at read time
 * with the same FIFO core.
 */
export async function benchSolana(wallets = Number(process.env.BENCH_SOLANA_WALLETS ?? SOLANA_BENCH_WALLETS)): Promise<BenchResult[]> {
  const dir = tempDir('svc-bench-')
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'warn' })
  const rt: Runtime = await createRuntime(config, 'bench')
  try {
    const addresses = Array.from({ length: wallets }, (_, i) => base58(createHash('sha256').update(`bench/wallet/${i}`).digest()))
    const mints = Array.from({ length: MINTS }, (_, i) => base58(createHash('sha256').update(`bench/mint/${i}`).digest()))
    const total = wallets * TRADES_PER_WALLET
    /** Trades number k in block-time order: round k / wallets, wallet k % wallets. */
    const chunk = (from: number) => {
      const out: SolanaTrade[] = []
      for (let k = from; k < Math.min(total, from + BATCH); k++) out.push(tradeOf(addresses, mints, k % wallets, Math.floor(k / wallets)))
      return out
    }
    const lastTime = T0 + TRADES_PER_WALLET * ROUND_SECONDS
    const candles: SolUsdCandle[] = []
    for (let s = T0 - (T0 % 300); s <= lastTime; s += 300) candles.push(candle(s))

    // Baseline: the same rows, batch by batch, into a bare copy of the table.
    await rt.ch.command({ query: 'CREATE DATABASE IF NOT EXISTS bare' })
    await rt.ch.command({ query: 'CREATE TABLE bare.solana_trades AS default.solana_trades ENGINE = MergeTree ORDER BY (wallet, mint, block_time, signature, side)' })
    let bareSeconds = 0
    for (let k = 0; k < total; k += BATCH) {
      const rows = chunk(k).map((t) => ({ ...rowOf(t) }))
      const t0 = performance.now()
      await rt.ch.insert({ table: 'bare.solana_trades', values: rows, format: 'JSONEachRow' })
      bareSeconds += (performance.now() - t0) / 1000
    }

    // Ours: universe and candles first (not timed), then the trades through the bus and the processor.
    let ingested = 0
    /** When each batch was folded, and the trades ingested by then. */
    const done: Array<{ at: number; rows: number }> = []
    const processor = createSolanaProcessor({
      ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, maxBatchSize: BATCH,
      onTrades: (n) => {
        ingested += n
        done.push({ at: performance.now(), rows: ingested })
      },
    })
    await processor.start()
    await rt.bus.publish(TOPICS.solanaUniverse, addresses.map((wallet) => ({ key: wallet, value: JSON.stringify({ wallet, venue: 'bench', listed_at: T0 }) })))
    await rt.bus.publish(TOPICS.pricesSolUsd, candles.map((c) => ({ key: 'SOL/USD', value: JSON.stringify(c) })))
    while ((await processor.lag()) > 0) await new Promise((r) => setTimeout(r, 20))
    let oursSeconds = 0
    for (let k = 0; k < total; k += BATCH) {
      // Serialized before the clock starts: the publisher's work is not the pipeline's.
      const records = chunk(k).map((t) => ({ key: 'venue', value: JSON.stringify(t) }))
      const t1 = performance.now()
      await rt.bus.publish(TOPICS.solanaTrades, records)
      // At most a few batches ahead: the in-process bus holds what is published in memory.
      while (ingested < k - 4 * BATCH) await new Promise((r) => setTimeout(r, 2))
      oursSeconds += (performance.now() - t1) / 1000
    }
    const t2 = performance.now()
    while (ingested < total) await new Promise((r) => setTimeout(r, 5))
    oursSeconds += (performance.now() - t2) / 1000
    // Rows/s over each quarter of the trades, between the batches that completed it: whether a
    // batch costs more as history grows.
    const quarters = [0, 1, 2, 3].map((q) => {
      const end = done.find((d) => d.rows >= ((q + 1) * total) / 4)!
      const start = q === 0 ? done[0]! : done.find((d) => d.rows >= (q * total) / 4)!
      return (end.rows - start.rows) / ((end.at - start.at) / 1000)
    })
    await processor.stop()

    // Receipts, cold: each sampled wallet read once through the serving (a miss each time).
    const serving = createSolanaServing({ ch: rt.ch, maxEntries: 100_000 })
    const sample = Array.from({ length: Math.min(300, wallets) }, (_, i) => addresses[Math.floor((i * wallets) / Math.min(300, wallets))]!)
    const ours: number[] = []
    for (const w of sample) {
      const t = performance.now()
      const r = await serving.receipt(w)
      ours.push(performance.now() - t)
      if (!r.found || r.trades !== TRADES_PER_WALLET) throw new Error(`bench: receipt of ${w} has ${r.trades} trades, expected ${TRADES_PER_WALLET}`)
    }
    const legs = `arrayMap(x -> x.2, arraySort(x -> x.1, groupArray(((block_time, slot, signature, side), CAST((if(side = 'buy', 1, -1), toInt256(token_qty), toInt256(usd_micro), toUInt32(block_time)), '${FIFO_LEG_TYPE}')))))`
    const refold = `SELECT toString(sum(f.1.realized)) AS realized, toString(sum(${fifoOpen('f.1').cost})) AS open_cost
      FROM (SELECT mint, ${fifoFold(legs, fifoInitialState())} AS f FROM solana_trades FINAL WHERE wallet = {wallet:String} GROUP BY mint)`
    const base: number[] = []
    for (const w of sample) {
      const t = performance.now()
      await queryRows(rt.ch, refold, { wallet: w })
      base.push(performance.now() - t)
    }
    const [rows] = await queryRows<{ c: string }>(rt.ch, 'SELECT count() AS c FROM solana_trades FINAL')
    if (Number(rows!.c) !== total) throw new Error(`bench: ${rows!.c} trades stored, expected ${total}`)
    const size = `${wallets.toLocaleString('en-US')} wallets × ${TRADES_PER_WALLET} trades = ${total.toLocaleString('en-US')} trades (${MINTS} mints each, half SOL legs), batches of ${BATCH}`
    return [
      {
        name: 'solana ingest: rows/s (bus → parse → USD at the candle → insert with token → views → FIFO fold, chDB)',
        baseline: 'bare insert of the same rows, same batches, into a copy of solana_trades without views, dedup or FIFO',
        ours: { value: Math.round(total / oursSeconds), unit: 'rows/s' },
        base: { value: Math.round(total / bareSeconds), unit: 'rows/s' },
        ratio: bareSeconds / oursSeconds,
        notes: `${size}; ours ${oursSeconds.toFixed(1)} s, bare ${bareSeconds.toFixed(1)} s; rows/s per quarter of the trades ${quarters.map((x) => Math.round(x).toLocaleString('en-US')).join(' / ')} (first ÷ last ${(quarters[0]! / quarters[3]!).toFixed(2)}: how a batch's cost grows as history grows 4×); full size (${SOLANA_UNIVERSE_SIZE.toLocaleString('en-US')} wallets): npm run bench -- solana-full`,
      },
      {
        name: 'solana receipt p99, cold (keyed read of the stored FIFO states, one wallet)',
        baseline: 'folding the wallet\'s legs from solana_trades at read time with the same FIFO core',
        ours: { value: Number(percentile(ours, 0.99).toFixed(1)), unit: `ms p99 (p50 ${percentile(ours, 0.5).toFixed(1)} ms)` },
        base: { value: Number(percentile(base, 0.99).toFixed(1)), unit: `ms p99 (p50 ${percentile(base, 0.5).toFixed(1)} ms)` },
        ratio: percentile(base, 0.99) / percentile(ours, 0.99),
        notes: `${sample.length} wallets of ${TRADES_PER_WALLET} trades, each read once; ${size}`,
      },
    ]
  } finally {
    await rt.close()
    dir.cleanup()
  }
}
