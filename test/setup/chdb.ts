import { afterAll, beforeAll } from 'vitest'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { migrate } from '../../sql/migrate.ts'
import { tempDir } from './temp.ts'

/** An empty chDB in a temporary directory (one per test file: chDB is one engine per process). */
export async function freshChDB(): Promise<{ ch: ClickHouseClient; close(): Promise<void> }> {
  const dir = tempDir()
  const ch = await createClickHouse({ DATA_DIR: dir.path } as never)
  return {
    ch,
    async close() {
      await ch.close()
      dir.cleanup()
    },
  }
}

/** A migrated chDB in a temporary directory. */
export async function migratedChDB(): Promise<{ ch: ClickHouseClient; close(): Promise<void> }> {
  const db = await freshChDB()
  await migrate(db.ch)
  return db
}

/**
 * A migrated chDB for the calling test file: made before its tests, closed after them. Read
 * `engine.ch` inside tests and hooks (it exists once the file's beforeAll ran).
 */
export function migratedChDBPerFile(): { readonly ch: ClickHouseClient } {
  let db: Awaited<ReturnType<typeof migratedChDB>> | undefined
  beforeAll(async () => {
    db = await migratedChDB()
  })
  afterAll(async () => db?.close())
  return {
    get ch() {
      if (!db) throw new Error('the engine is made in beforeAll: read it inside a test or hook')
      return db.ch
    },
  }
}
