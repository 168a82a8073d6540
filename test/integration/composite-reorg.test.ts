import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { ConstructedWorld, ingestWorld, weth, type Pair } from '../setup/constructed-world.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * A +15 min verdict taken at a block that a reorg orphans is deleted with it and taken again on
 * the new chain, from the new chain's state: no verdict of an orphaned chain stays recorded.
 */
let env: Embedded
const T0 = 1_760_000_040

const ingest = (w: ConstructedWorld) => ingestWorld(w, { bus: env.rt.bus, ch: env.rt.ch, watermark: () => env.processor.watermark() })

const verdictsOf = (token: string) =>
  queryRows<{ taken_block: string; signal: string; reasons: string }>(env.rt.ch, 'SELECT taken_block, signal, reasons FROM launch_verdicts WHERE token = {t:String} ORDER BY taken_block', { t: token })

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '3' }, { social: false })
}, 120_000)
afterAll(async () => env?.close())

describe('+15 min verdicts and reorgs', () => {
  it('a verdict taken at an orphaned block is replaced by the one taken on the new chain', async () => {
    const w = new ConstructedWorld(0, T0 - 24, 'c0')
    const Z = w.address('de9a')
    w.block(24)
    const x = w.create(Z, 'FORK')
    w.block(12)
    const X: Pair = w.launch(x, Z, weth(5), 500_000n)
    w.block(12)
    for (let k = 0; k < 3; k++) w.buy(X, w.address('7ade'), weth(0.05), 5000n)
    while (w.now < T0 + 20 * 60) w.block(60)
    await ingest(w)
    const before = await verdictsOf(X.token)
    expect(before).toHaveLength(1)
    expect(JSON.parse(before[0]!.reasons).map((r: { code: string }) => r.code)).toContain('not_real')
    const takenAt = Number(before[0]!.taken_block)

    // The new chain forks two blocks before the verdict's block; on it the token became real first.
    const forkParent = w.blocks.find((b) => b.number === takenAt - 2)!
    const f = new ConstructedWorld(takenAt - 2, forkParent.timestamp, 'd1')
    f.block(12)
    for (let k = 0; k < 60; k++) f.buy(X, f.address('7adf'), weth(0.05), 5000n)
    while (f.now < T0 + 30 * 60) f.block(60)
    await ingest(f)

    const after = await verdictsOf(X.token)
    expect(after).toHaveLength(1)
    expect(Number(after[0]!.taken_block)).toBeGreaterThanOrEqual(takenAt - 1)
    const codes = JSON.parse(after[0]!.reasons).map((r: { code: string }) => r.code)
    expect(codes).toContain('real')
    expect(codes).not.toContain('not_real')
    // The per-minute aggregates of the orphaned blocks went with them: 3 + 60 swaps, not 3 + 3 + 60.
    const [m] = await queryRows<{ n: string }>(env.rt.ch, 'SELECT sum(swaps) AS n FROM token_minute_activity WHERE chain_id = 4663 AND token = {t:String}', { t: X.token })
    expect(Number(m!.n)).toBe(63)
  })
})
