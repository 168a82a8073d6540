import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { startTestEngine, type TestEngine } from '../setup/engine.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * A read the service gave up on (its request timed out) stops on the engine: it does not keep
 * a core busy for the seconds or minutes it would have run, behind which every other statement
 * of the shared engine waits.
 */
describe('an abandoned read on the engine', () => {
  const dir = tempDir('svc-engine-abandoned-')
  let engine: TestEngine
  let patient: ClickHouseClient
  beforeAll(async () => {
    engine = await startTestEngine(dir.path)
    patient = await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'default', DATA_DIR: dir.path, CLICKHOUSE_REQUEST_TIMEOUT_MS: 30_000 })
  }, 120_000)
  afterAll(async () => {
    await patient?.close()
    await engine?.svc.stop()
    dir.cleanup()
  })

  it('is cancelled once its request times out, not run to its end', { timeout: 60_000 }, async () => {
    const hasty = await createClickHouse({ ...engine.env, CLICKHOUSE_DATABASE: 'default', DATA_DIR: dir.path, CLICKHOUSE_REQUEST_TIMEOUT_MS: 1_000 })
    const queryId = `abandoned-${Date.now()}`
    const running = async () => Number((await queryRows<{ n: string }>(patient, 'SELECT count() AS n FROM system.processes WHERE query_id = {id:String}', { id: queryId }))[0]!.n)
    try {
      // About a minute of one thread's work: far past the request's timeout.
      const sent = Date.now()
      const long = hasty.query({ query: 'SELECT sum(cityHash64(number)) FROM numbers(20000000000)', query_id: queryId, clickhouse_settings: { max_threads: 1 } }).then(() => null, (err: Error) => err)
      await until('the long read to start on the engine', async () => ((await running()) === 1 ? true : undefined), 10_000)
      // The client gives up after its request timeout.
      expect(await long).toBeInstanceOf(Error)
      const gaveUp = Date.now()
      expect(gaveUp - sent).toBeGreaterThanOrEqual(900)
      await until('the abandoned read to stop on the engine', async () => ((await running()) === 0 ? true : undefined), 10_000)
      expect(Date.now() - gaveUp).toBeLessThan(5_000)
    } finally {
      await hasty.close()
    }
  })
})
