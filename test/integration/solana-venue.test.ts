import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { queryRows } from '../../core/clickhouse.ts'
import { Gauge } from '../../core/metrics.ts'
import { candleStart, lamportsToMicroUsd, priceE8, type SolanaTrade } from '../../pipelines/records/solana.ts'
import { createSolanaSim } from '../../pipelines/sim/solana-sim.ts'
import { createSolanaSimSource } from '../../pipelines/sources/solana-sim-source.ts'
import { refWallet, type RefLeg } from '../setup/fifo-reference.ts'
import { startSolanaEnv, type SolanaEnv } from '../setup/solana-env.ts'
import { until } from '../setup/until.ts'

/**
 * The simulated venue through the real pipeline: the source publishes a small universe's
 * history in two runs (the second resumes from what the first stored), the Solana processor
 * ingests it, and each receipt agrees with the independent TypeScript FIFO
 * (test/setup/fifo-reference.ts) over the simulator's own trades, each SOL leg valued at its
 * candle's close as the definition says.
 */

const SEED = 11
const WALLETS = 300
const NOW = 1_750_000_000
const BACKFILL = 36 * 3600
const HALF = NOW - 12 * 3600

let env: SolanaEnv
beforeAll(async () => {
  env = await startSolanaEnv()
}, 60_000)
afterAll(async () => env?.close())

/** A real gauge that also keeps every value the source sets on it, in order. */
class RecordingGauge extends Gauge {
  readonly values: number[] = []
  override set(labels: Record<string, string>, value: number): void {
    super.set(labels, value)
    this.values.push(value)
  }
}

const behindGauge = () => new RecordingGauge(new Registry(), 'svc_sim_behind_seconds', 'test', ['source'])

/** `behind`: where the source says, tick by tick, how much history it still has to publish (svc_sim_behind_seconds). */
const source = (untilTime: number, behind = behindGauge()) =>
  createSolanaSimSource({
    bus: env.rt.bus, ch: env.rt.ch, logger: env.rt.logger, seed: SEED, tradesPerSecond: 100_000, backfillSeconds: BACKFILL, wallets: WALLETS, now: () => NOW, until: untilTime, tickMs: 5,
    metrics: { infraRetries: env.rt.metrics.infraRetries, infraFaults: env.rt.metrics.infraFaults, simBehind: behind },
  })

async function drained(published: number): Promise<void> {
  await until('the venue ingested', async () => ((await env.processor.lag()) === 0 && env.ingested() >= published ? true : undefined), 120_000)
}

describe('the simulated Solana venue through the pipeline', () => {
  const sim = createSolanaSim({ seed: SEED, genesis: NOW - BACKFILL, wallets: WALLETS })
  const all: SolanaTrade[] = sim.take(NOW, 1e9)

  it('publishes the universe and the trades once, across a restart that resumes from what was stored', async () => {
    const behind = behindGauge()
    const first = source(HALF, behind)
    await first.run()
    await drained(first.published())
    // Its first tick publishes next to nothing (no time has passed to allow more): the history
    // still ahead of it is behind the clock; its last, once everything up to the clock is out, none.
    expect(behind.values[0]).toBeGreaterThan(3600)
    expect(behind.values.at(-1)).toBe(0)
    const [mid] = await queryRows<{ c: string }>(env.rt.ch, 'SELECT count() AS c FROM solana_trades')
    expect(Number(mid!.c)).toBe(all.filter((t) => t.block_time <= HALF).length)
    const second = source(NOW)
    await second.run()
    await drained(first.published() + second.published())
    expect(first.published() + second.published()).toBe(all.length)
    const [r] = await queryRows<{ c: string; u: string; w: string; members: string }>(
      env.rt.ch,
      'SELECT count() AS c, uniqExact(signature) AS u, uniqExact(wallet) AS w, (SELECT uniqExact(wallet) FROM solana_universe) AS members FROM solana_trades',
    )
    expect(Number(r!.c)).toBe(all.length)
    expect(Number(r!.u)).toBe(all.length)
    expect(Number(r!.members)).toBe(WALLETS)
    expect(Number(r!.w)).toBe(new Set(all.map((t) => t.wallet)).size)
  }, 180_000)

  it('answers every sampled wallet as the independent FIFO computes it from the simulator trades and candles', async () => {
    const closeE8 = new Map<number, bigint>()
    const usdMicro = (t: SolanaTrade) => {
      if (t.quote === 'USD') return BigInt(t.quote_amount)
      const s = candleStart(t.block_time)
      if (!closeE8.has(s)) closeE8.set(s, priceE8(sim.candle(s).close))
      return lamportsToMicroUsd(BigInt(t.quote_amount), closeE8.get(s)!)
    }
    const byWallet = new Map<string, SolanaTrade[]>()
    for (const t of all) byWallet.set(t.wallet, [...(byWallet.get(t.wallet) ?? []), t])
    const wallets = [...byWallet.keys()].filter((_, i) => i % 10 === 0)
    let sells = 0
    for (const wallet of wallets) {
      const trades = byWallet.get(wallet)!
      const want = refWallet([...new Set(trades.map((t) => t.mint))].map((mint) => trades.filter((t) => t.mint === mint).map((t): RefLeg => ({ side: t.side === 'buy' ? 1 : -1, qty: BigInt(t.token_qty), cost: usdMicro(t), t: t.block_time }))))
      sells += want.sells
      const res = await env.get(`/solana/wallet-receipt/${wallet}`)
      expect(res.status).toBe(200)
      expect(res.json().data, wallet).toMatchObject({
        found: true,
        trades: trades.length,
        realized_net_micro_usd: want.realized.toString(),
        open_cost_micro_usd: want.openCost.toString(),
        sells: want.sells,
        winning_sells: want.winningSells,
        win_rate: want.sells ? want.winningSells / want.sells : null,
        unmatched_sells: want.unmatchedSells,
        median_hold_seconds: want.medianHold,
      })
      expect(res.json().measured_through).toBe(new Date(all[all.length - 1]!.block_time * 1000).toISOString().replace('.000Z', 'Z'))
    }
    expect(sells).toBeGreaterThan(20)
  }, 120_000)
})
