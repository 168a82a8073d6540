import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { CountedBefore, countNewTraders } from '../../products/token/chain-totals.ts'
import { ConstructedWorld, ingestWorld, weth, type Pair } from '../setup/constructed-world.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'
import { watchedEngine } from '../setup/watched-engine.ts'

/**
 * /stats' distinct traders after a reorg: the rollback recounts them from the new chain, and the
 * processor's memory of counted traders (products/token/chain-totals.ts) is forgotten with it.
 */
let env: Embedded
const T0 = 1_760_003_640

const ingest = (w: ConstructedWorld) => ingestWorld(w, { bus: env.rt.bus, ch: env.rt.ch, watermark: () => env.processor.watermark() })

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '3' }, { social: false })
}, 120_000)
afterAll(async () => env?.close())

describe('chain totals and reorgs', () => {
  it('a trader whose only swap a reorg orphaned is counted again when it trades on the new chain', async () => {
    const uniqueTraders = async () => {
      const res = await env.api.app.inject({ method: 'GET', url: '/stats' })
      return (res.json().data.chains as Array<{ chain_id: number; unique_traders: number }>).find((c) => c.chain_id === 4663)!.unique_traders
    }
    const rawTraders = async () => Number((await queryRows<{ n: string }>(env.rt.ch, 'SELECT uniqExact(trader) AS n FROM swaps FINAL WHERE chain_id = 4663'))[0]!.n)
    const w = new ConstructedWorld(0, T0 - 24, 'c2')
    const Z = w.address('de9b')
    w.block(24)
    const Y: Pair = w.launch(w.create(Z, 'RECOUNT'), Z, weth(5), 500_000n)
    w.block(12)
    w.buy(Y, w.address('7ae0'), weth(0.05), 5000n)
    const v = w.address('7ae1')
    w.block(12)
    w.buy(Y, v, weth(0.05), 5000n)
    const orphaned = w.head
    for (let k = 0; k < 4; k++) w.block(12)
    await ingest(w)
    expect(await uniqueTraders()).toBe(await rawTraders())

    // The new chain drops v's swap, then v trades on it a few blocks later.
    const forkParent = w.blocks.find((b) => b.number === orphaned - 1)!
    const f = new ConstructedWorld(orphaned - 1, forkParent.timestamp, 'd2')
    for (let k = 0; k < 3; k++) f.block(12)
    f.block(12)
    f.buy(Y, v, weth(0.05), 5000n)
    for (let k = 0; k < 4; k++) f.block(12)
    await ingest(f)
    expect(await uniqueTraders()).toBe(await rawTraders())
  })

  it('a processor that started on an empty chain counts new traders and tokens without reading what was counted, until it forgets', async () => {
    // A chain of its own, nothing counted on it; the real client, counting the reads.
    const CHAIN = 4990
    let reads = 0
    const ch = watchedEngine(env.rt.ch, 'query', () => reads++)
    const counted = new CountedBefore()
    counted.startEmpty()
    const batch = (n: number, traders: string[], tokens: string[]) => ({ traders: new Set(traders), tokens: new Set(tokens), fromBlock: n, token: `counted-${n}` })
    const totals = async () => {
      const [t] = await queryRows<{ traders: string; tokens: string; listed: string }>(
        env.rt.ch,
        `SELECT (SELECT sum(traders) FROM chain_totals WHERE chain_id = ${CHAIN}) AS traders, (SELECT sum(tokens_traded) FROM chain_totals WHERE chain_id = ${CHAIN}) AS tokens,
                (SELECT uniqExact(trader) FROM chain_traders WHERE chain_id = ${CHAIN}) AS listed`,
      )
      return { traders: Number(t!.traders), tokens: Number(t!.tokens), listed: Number(t!.listed) }
    }
    await countNewTraders(ch, CHAIN, batch(1, ['0xa1', '0xa2'], ['0xt1']), counted)
    await countNewTraders(ch, CHAIN, batch(2, ['0xa2', '0xa3'], ['0xt1', '0xt2']), counted)
    // The same batch again (a retry): its inserts carry the same tokens and change nothing.
    await countNewTraders(ch, CHAIN, batch(2, ['0xa2', '0xa3'], ['0xt1', '0xt2']), new CountedBefore())
    expect(reads).toBe(1)
    reads = 0
    await countNewTraders(ch, CHAIN, batch(3, ['0xa1', '0xa3'], ['0xt2']), counted)
    expect(await totals()).toEqual({ traders: 3, tokens: 2, listed: 3 })
    expect(reads).toBe(0)
    // Forgotten (a rollback recounts): what it has not learnt again is read.
    counted.forget()
    await countNewTraders(ch, CHAIN, batch(4, ['0xa1', '0xa4'], ['0xt2']), counted)
    expect(reads).toBe(1)
    expect((await totals()).listed).toBe(4)
  })
})
