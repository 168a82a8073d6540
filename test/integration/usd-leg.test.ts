import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { createUsdLegStep } from '../../pipelines/process/solana/usd-leg-step.ts'
import type { SolanaTrade } from '../../pipelines/records/solana.ts'
import type { BusMessage } from '../../core/bus/types.ts'
import { migratedChDB } from '../setup/chdb.ts'

let db: Awaited<ReturnType<typeof migratedChDB>>
beforeAll(async () => {
  db = await migratedChDB()
}, 60_000)
afterAll(async () => db?.close())

/** The real client, counting the reads of candles. */
function counting(ch: ClickHouseClient, onRead: () => void): ClickHouseClient {
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver)
      return (args: Parameters<ClickHouseClient['query']>[0]) => {
        onRead()
        return target.query(args)
      }
    },
  }) as ClickHouseClient
}

const WINDOW = 1_800_000_000 // a multiple of 300
const trade: SolanaTrade = {
  signature: '5'.repeat(88), slot: 1, block_time: WINDOW + 42, wallet: '7'.repeat(44), mint: '8'.repeat(44),
  side: 'buy', token_qty: '1000', quote: 'SOL', quote_amount: '2000000000',
}

const message: BusMessage = { topic: 'solana.trades', partition: 0, offset: '0', timestamp: 0, key: null, value: JSON.stringify(trade) }

describe('the SOL leg of a trade whose candle is not in yet', () => {
  it('is held, and its window is looked up again at most every few seconds, then valued at the close', async () => {
    let reads = 0
    const step = createUsdLegStep({ ch: counting(db.ch, () => reads++) })
    expect((await step.run(trade, message)).kind).toBe('hold')
    expect(reads).toBe(1)
    // Delivered again right away (a held batch comes back every flush): no read.
    for (let i = 0; i < 5; i++) expect((await step.run(trade, message)).kind).toBe('hold')
    expect(reads).toBe(1)

    await db.ch.insert({ table: 'sol_usd_candles', values: [{ start: WINDOW, open: '150', high: '151', low: '149', close: '150.5' }], format: 'JSONEachRow' })
    const now = Date.now()
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + 6_000)
    try {
      const valued = await step.run(trade, message)
      expect(reads).toBe(2)
      expect(valued).toMatchObject({ kind: 'ok', value: { sol_usd_close: '150.5', usd_micro: '301000000' } })
    } finally {
      clock.mockRestore()
    }
  })
})
