import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { migrate } from '../../sql/migrate.ts'
import { tempDir } from './temp.ts'

/** A migrated chDB in a temporary directory (one per test file: chDB is one engine per process). */
export async function migratedChDB(): Promise<{ ch: ClickHouseClient; close(): Promise<void> }> {
  const dir = tempDir()
  const ch = await createClickHouse({ DATA_DIR: dir.path } as never)
  await migrate(ch)
  return {
    ch,
    async close() {
      await ch.close()
      dir.cleanup()
    },
  }
}
