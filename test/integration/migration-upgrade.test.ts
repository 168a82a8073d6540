import { describe, expect, it } from 'vitest'
import { createClickHouse, queryRows } from '../../core/clickhouse.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { tempDir } from '../setup/temp.ts'

/** Migrations that carry data a data dir already holds: applied over a dir stopped before them. */
describe('upgrading a data dir', () => {
  it('027 carries the closed holds of Solana FIFO states folded before it into solana_hold_counts, and drops the column', async () => {
    const dir = tempDir()
    const ch = await createClickHouse({ DATA_DIR: dir.path } as never)
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
      await ch.close()
      dir.cleanup()
    }
  })
})
