import { describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { createMetrics } from '../../core/metrics.ts'
import { catchUpFifo, foldBlocks, misfoldedPairs } from '../../products/wallet/fifo-refresh.ts'
import { createClickHouseSink } from '../../pipelines/sink/clickhouse-sink.ts'
import { runVerify } from '../../pipelines/verify/run-verify.ts'
import { hex } from '../setup/hex.ts'
import { migratedChDBPerFile } from '../setup/chdb.ts'
import { randomWei, refFold, seeded, type RefLeg } from '../setup/fifo-reference.ts'

/**
 * Issue 24, a data dir written by the old code: its first batch started at block 0, so its legs
 * were never folded, and the next batch's fold moved each pair's position past them. Built here by
 * doing what that code did (insert the first batch without folding it, fold the second), then the
 * processor's start check (catchUpFifo) must find every such pair and refold it from nothing.
 */
const CHAIN = 4663
const engine = migratedChDBPerFile()

const wallets = Array.from({ length: 5 }, (_, i) => hex(0xa100 + i, 40))
const tokens = Array.from({ length: 3 }, (_, i) => hex(0xb100 + i, 40))

/** Blocks from 0 with buys and sells of random sizes (sells up to past what is held). */
function history(blocks: number) {
  const rnd = seeded(24)
  const out = []
  for (let b = 0; b < blocks; b++) {
    const swaps = []
    for (let i = 0; i < 3; i++) {
      const buy = rnd() < 0.55
      const q = randomWei(rnd, 10n ** 15n, 10n ** 21n)
      const w = randomWei(rnd, 10n ** 14n, 10n ** 18n)
      swaps.push({
        chain_id: CHAIN, block_number: b, log_index: i, tx_hash: hex(b * 10 + i, 64), pool: hex(0xc100, 40), protocol: 'v2',
        token: tokens[Math.floor(rnd() * tokens.length)]!, trader: wallets[Math.floor(rnd() * wallets.length)]!,
        token_in: buy ? '0' : q.toString(), token_out: buy ? q.toString() : '0', weth_in: buy ? w.toString() : '0', weth_out: buy ? '0' : w.toString(),
        block_time: 1_735_689_600 + b * 12,
      })
    }
    out.push({ number: b, swaps })
  }
  return out
}

type Block = ReturnType<typeof history>[number]

async function insert(blocks: Block[], token: string) {
  await createClickHouseSink(engine.ch, createMetrics()).insertBatch(token, [
    ['swaps', blocks.flatMap((b) => b.swaps)],
    ['chain_blocks', blocks.map((b) => ({ chain_id: CHAIN, number: b.number, hash: hex(b.number, 64), parent_hash: hex(b.number - 1, 64), timestamp: 1_735_689_600 + b.number * 12, log_count: b.swaps.length }))],
  ])
}

/** The reference state of every pair: each pair's swaps in chain order, folded from nothing. */
function reference(blocks: Block[]) {
  const legs = new Map<string, RefLeg[]>()
  for (const s of blocks.flatMap((b) => b.swaps)) {
    const buy = BigInt(s.token_out) > BigInt(s.token_in)
    const leg: RefLeg = buy ? { side: 1, qty: BigInt(s.token_out), cost: BigInt(s.weth_in), t: s.block_time } : { side: -1, qty: BigInt(s.token_in), cost: BigInt(s.weth_out), t: s.block_time }
    const k = `${s.trader}/${s.token}`
    legs.set(k, [...(legs.get(k) ?? []), leg])
  }
  return new Map([...legs].map(([k, l]) => [k, { legs: l.length, realized: refFold(l).state.realized, sells: refFold(l).state.sells }]))
}

async function stored() {
  const rows = await queryRows<{ wallet: string; token: string; legs: string; realized: string; sells: string }>(
    engine.ch,
    'SELECT wallet, token, legs, toString(state.realized) AS realized, state.sells AS sells FROM fifo_state FINAL WHERE chain_id = {c:UInt32} ORDER BY wallet, token',
    { c: CHAIN },
  )
  return new Map(rows.map((r) => [`${r.wallet}/${r.token}`, { legs: Number(r.legs), realized: BigInt(r.realized), sells: Number(r.sells) }]))
}

describe('repair of a data dir whose first batch (from block 0) was never folded', () => {
  const blocks = history(30)

  it('the old behaviour leaves pairs short of legs; verify names them; the start check refolds them to the reference', async () => {
    await insert(blocks.slice(0, 10), 'first') // old code: fromBlock 0 read as "whole rebuild", no fold
    await insert(blocks.slice(10), 'second')
    await foldBlocks(engine.ch, CHAIN, 10, 29)
    const want = reference(blocks)

    const before = await stored()
    const short = [...want.keys()].filter((k) => before.get(k)?.legs !== want.get(k)!.legs)
    expect(short.length).toBeGreaterThan(5)
    expect((await misfoldedPairs(engine.ch, CHAIN)).map((p) => `${p.wallet}/${p.token}`).sort()).toEqual(short.sort())
    const audit = await runVerify(engine.ch, { views: ['fifo_state'] })
    expect(audit.views[0]).toMatchObject({ view: 'fifo_state', chain: CHAIN, checked: want.size, drifted: short.length })
    expect(short).toContain(audit.views[0]!.first[0]!.key)

    expect(await catchUpFifo(engine.ch, CHAIN)).toBe(short.length)
    expect(await stored()).toEqual(want)
    expect(await misfoldedPairs(engine.ch, CHAIN)).toEqual([])
    const after = await runVerify(engine.ch, { views: ['fifo_state', 'fifo_sells', 'fifo_hold_counts'] })
    expect(after.views.map((v) => [v.view, v.drifted])).toEqual([['fifo_state', 0], ['fifo_sells', 0], ['fifo_hold_counts', 0]])
    // A second start finds nothing to do.
    expect(await catchUpFifo(engine.ch, CHAIN)).toBe(0)
  })
})
