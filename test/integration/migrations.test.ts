import { mkdtempSync, readFileSync, writeFileSync, readdirSync, copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { tempDir } from '../setup/temp.ts'

describe('migrate()', () => {
  const dir = tempDir()
  let ch: ClickHouseClient
  beforeAll(async () => {
    ch = await createClickHouse({ DATA_DIR: dir.path } as never)
  })
  afterAll(async () => {
    await ch.close()
    dir.cleanup()
  })

  it('migrate() applies every migration once and is a no-op the second time', async () => {
    const all = readMigrations().map((m) => m.name)
    const first = await migrate(ch)
    expect(first.applied).toEqual(all)
    const tablesAfterFirst = await queryRows<{ name: string }>(ch, 'SHOW TABLES')
    const second = await migrate(ch)
    expect(second.applied).toEqual([])
    expect(second.skipped).toEqual(all)
    expect(await queryRows(ch, 'SHOW TABLES')).toEqual(tablesAfterFirst)
    const recorded = await queryRows<{ c: string }>(ch, 'SELECT count() AS c FROM schema_migrations')
    expect(Number(recorded[0]!.c)).toBe(all.length)
  })

  it('migrate() refuses a migration edited after it was applied', async () => {
    const copy = mkdtempSync(join(dir.path, 'mig-'))
    const src = join(import.meta.dirname, '../../sql/migrations')
    for (const f of readdirSync(src)) copyFileSync(join(src, f), join(copy, f))
    const first = readdirSync(copy).sort()[0]!
    writeFileSync(join(copy, first), readFileSync(join(copy, first), 'utf8') + '\n-- edited\n')
    await expect(migrate(ch, readMigrations(copy))).rejects.toThrow(/was changed after it was applied/)
  })
})
