import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, isEmbedded, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { runReadOnlySql } from '../../sql/read-only.ts'
import { tempDir } from '../setup/temp.ts'

const dir = tempDir()
let ch: ClickHouseClient

beforeAll(async () => {
  ch = await createClickHouse({ DATA_DIR: dir.path } as Parameters<typeof createClickHouse>[0])
  await ch.command({ query: 'CREATE TABLE dedup (x UInt64) ENGINE = MergeTree ORDER BY x SETTINGS non_replicated_deduplication_window = 100' })
})
afterAll(async () => {
  await ch.close()
  dir.cleanup()
})

describe('the embedded client keeps settings to the call that set them', () => {
  it('a deduplication token set by one insert does not drop the next inserts', async () => {
    expect(isEmbedded(ch)).toBe(true)
    await ch.insert({ table: 'dedup', values: [{ x: 1 }], format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'batch-1', max_insert_block_size: '100000000' } })
    await ch.insert({ table: 'dedup', values: [{ x: 2 }], format: 'JSONEachRow' })
    await ch.command({ query: 'INSERT INTO dedup SELECT 3' })
    // The same token again is a retry: dropped, as it must be.
    await ch.insert({ table: 'dedup', values: [{ x: 1 }], format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: 'batch-1' } })
    const [r] = await queryRows<{ xs: string[]; token: string; block: string }>(
      ch,
      "SELECT groupArray(x) AS xs, getSetting('insert_deduplication_token') AS token, toString(getSetting('max_insert_block_size')) AS block FROM (SELECT x FROM dedup ORDER BY x)",
    )
    expect(r).toEqual({ xs: ['1', '2', '3'], token: '', block: '1048449' })
  })

  it('a statement that fails after writing output leaves none of it to the next call', async () => {
    const limited = "SELECT number FROM numbers(200000) SETTINGS max_result_rows = 100000, result_overflow_mode = 'throw'"
    const answers = await Promise.allSettled([
      ch.query({ query: limited, format: 'JSONEachRow' }).then((rs) => rs.text()),
      ch.query({ query: 'SELECT 42 AS a', format: 'JSONEachRow' }).then((rs) => rs.json()),
    ])
    expect(answers[0].status).toBe('rejected')
    expect(answers[1]).toEqual({ status: 'fulfilled', value: [{ a: 42 }] })
    await expect(ch.query({ query: limited, format: 'JSONEachRow' })).rejects.toThrow(/Limit for result/)
    expect(await queryRows(ch, 'SELECT 43 AS b')).toEqual([{ b: 43 }])
  })

  it('calls made at once keep their settings apart, whatever order they reach the engine in', async () => {
    await ch.command({ query: 'CREATE TABLE dedup_race (x UInt64) ENGINE = MergeTree ORDER BY x SETTINGS non_replicated_deduplication_window = 100' })
    // The insert reads its body before it runs; the query made after it reaches the engine first.
    // Its resets must not be taken for the insert's: the token stays with the insert alone.
    for (let i = 0; i < 5; i++) {
      await Promise.all([
        ch.insert({ table: 'dedup_race', values: [{ x: 10 * i }], format: 'JSONEachRow', clickhouse_settings: { insert_deduplication_token: `race-${i}` } }),
        ch.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((rs) => rs.json()),
      ])
      await ch.insert({ table: 'dedup_race', values: [{ x: 10 * i + 1 }], format: 'JSONEachRow' })
    }
    const [r] = await queryRows<{ n: string }>(ch, 'SELECT count() AS n FROM dedup_race')
    expect(r!.n).toBe('10')
  })

  it('read-only SQL is bounded by its own query and leaves later writes possible', async () => {
    expect(await runReadOnlySql(ch, 'SELECT count() AS n FROM dedup')).toEqual([{ n: '3' }])
    await expect(runReadOnlySql(ch, 'INSERT INTO dedup SELECT 9')).rejects.toThrow(/only SELECT/)
    expect(await runReadOnlySql(ch, 'SHOW TABLES')).toContainEqual({ name: 'dedup' })
    await expect(runReadOnlySql(ch, 'SHOW TABLES; DROP TABLE dedup')).rejects.toThrow(/Multi-statements/)
    await expect(runReadOnlySql(ch, 'SELECT 1; DROP TABLE dedup')).rejects.toThrow()
    await expect(runReadOnlySql(ch, 'SELECT number FROM numbers(200000)')).rejects.toThrow(/Limit for result exceeded/)
    await expect(runReadOnlySql(ch, 'SELECT 1 SETTINGS readonly = 0')).rejects.toThrow(/readonly/)
    await ch.insert({ table: 'dedup', values: [{ x: 4 }], format: 'JSONEachRow' })
    expect(await queryRows(ch, 'SELECT count() AS n FROM dedup')).toEqual([{ n: '4' }])
  })
})
