import { describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { freshChDB } from '../setup/chdb.ts'

/** Migrations that carry data a data dir already holds: applied over a dir stopped before them. */
describe('upgrading a data dir', () => {
  it('028 counts the holds of sells matched before it and writes each state again with its unmatched sells', async () => {
    const { ch, close } = await freshChDB()
    try {
      const all = readMigrations()
      await migrate(ch, all.filter((m) => m.version < 28))
      // Two folds of one pair: the first matched a sell with an unmatched rest, the second closed two lots.
      await ch.command({
        query: `INSERT INTO fifo_state (chain_id, wallet, token, through_pos, legs, sells_added, version) VALUES
          (4663, 'w', 't', 10, 3, [(1, 0, '2026-01-01 00:00:00', 5, 9, 0, 5, 9, [])], 1),
          (4663, 'w', 't', 20, 6, [(2, 0, '2026-01-01 01:00:00', 5, 9, 4, 0, 5, [60, 600])], 2)`,
      })
      await migrate(ch, all)
      const counts = await queryRows<{ h: number; n: string }>(ch, "SELECT hold_seconds AS h, sum(lots) AS n FROM fifo_hold_counts WHERE wallet = 'w' GROUP BY h ORDER BY h")
      expect(counts.map((c) => [c.h, Number(c.n)])).toEqual([[60, 1], [600, 1]])
      const [state] = await queryRows<{ legs: string; unmatched_sells: string; pos: string }>(ch, "SELECT legs, unmatched_sells, through_pos AS pos FROM fifo_state FINAL WHERE wallet = 'w'")
      expect([Number(state!.legs), Number(state!.pos), Number(state!.unmatched_sells)]).toEqual([6, 20, 1])
    } finally {
      await close()
    }
  })

  it('027 carries the closed holds of Solana FIFO states folded before it into solana_hold_counts, and drops the column', async () => {
    const { ch, close } = await freshChDB()
    try {
      const all = readMigrations()
      await migrate(ch, all.filter((m) => m.version < 27))
      // Two versions of one pair's state: only the newest one's holds count.
      await ch.command({ query: "INSERT INTO solana_fifo_state (wallet, mint, legs, closed_holds) VALUES ('W', 'M', 2, [60]), ('W', 'M', 5, [60, 60, 4000])" })
      await migrate(ch, all)
      const counts = await queryRows<{ h: number; n: string }>(ch, "SELECT hold_seconds AS h, sum(lots) AS n FROM solana_hold_counts WHERE wallet = 'W' GROUP BY h ORDER BY h")
      expect(counts.map((c) => [c.h, Number(c.n)])).toEqual([[60, 2], [4000, 1]])
      const columns = await queryRows<{ name: string }>(ch, "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'solana_fifo_state'")
      expect(columns.map((c) => c.name)).not.toContain('closed_holds')
    } finally {
      await close()
    }
  })
  it('033 rebuilds wallet_legs with 256-row granules: the legs it held stay, and its view still fills it', async () => {
    const { ch, close } = await freshChDB()
    try {
      const all = readMigrations()
      await migrate(ch, all.filter((m) => m.version < 33))
      const swap = (block: number, tokenIn: string, tokenOut: string) =>
        `(4663, ${block}, 0, '0xt${block}', '0xpool', 'v2', '0xtoken', '0xtrader', ${tokenIn}, ${tokenOut}, 0, 0, '2026-01-01 00:00:00')`
      const columns = 'chain_id, block_number, log_index, tx_hash, pool, protocol, token, trader, token_in, token_out, weth_in, weth_out, block_time'
      await ch.command({ query: `INSERT INTO swaps (${columns}) VALUES ${swap(1, '0', '10')}, ${swap(2, '4', '0')}` })
      await migrate(ch, all)
      const [table] = await queryRows<{ settings: string }>(ch, "SELECT engine_full AS settings FROM system.tables WHERE database = currentDatabase() AND name = 'wallet_legs'")
      expect(table!.settings).toContain('index_granularity = 256')
      await ch.command({ query: `INSERT INTO swaps (${columns}) VALUES ${swap(3, '0', '7')}` })
      const legs = await queryRows<{ block_number: string; side: number; qty: string }>(ch, "SELECT block_number, side, qty FROM wallet_legs FINAL WHERE wallet = '0xtrader' ORDER BY block_number")
      expect(legs.map((l) => [Number(l.block_number), l.side, l.qty])).toEqual([[1, 1, '10'], [2, -1, '4'], [3, 1, '7']])
    } finally {
      await close()
    }
  })
})
