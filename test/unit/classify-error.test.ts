import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { classifyError, clickHouseCode } from '../../pipelines/consumer/classify-error.ts'
import { freePort } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/** The error `p` rejects with. */
const rejection = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a rejection') }, (err: unknown) => err)

describe('classifyError()', () => {
  const dir = tempDir()
  let ch: ClickHouseClient
  beforeAll(async () => {
    ch = await createClickHouse({ DATA_DIR: dir.path } as never)
    await ch.command({ query: 'CREATE TABLE t (n UInt32, d DateTime) ENGINE = MergeTree ORDER BY n' })
  })
  afterAll(async () => {
    await ch?.close()
    dir.cleanup()
  })

  it('classifyError() calls a refused connection retryable (the cause of a fetch failure)', async () => {
    const err = await rejection(fetch(`http://127.0.0.1:${await freePort()}/`))
    expect(classifyError(err)).toBe('retryable')
  })

  it('classifyError() calls a timeout retryable', async () => {
    const err = await rejection(new Promise((_, reject) => AbortSignal.timeout(1).addEventListener('abort', function (this: AbortSignal) { reject(this.reason) })))
    expect(classifyError(err)).toBe('retryable')
  })

  it('classifyError() calls a row ClickHouse cannot parse fatal, and reads its code', async () => {
    const err = await rejection(ch.insert({ table: 't', values: [{ n: 'not a number', d: 'never' }], format: 'JSONEachRow' }))
    expect(clickHouseCode(err)).toBeGreaterThan(0)
    expect(classifyError(err)).toBe('fatal')
  })

  it('classifyError() calls ClickHouse overload and HTTP 5xx retryable, a plain error fatal', () => {
    expect(classifyError(Object.assign(new Error('Too many simultaneous queries'), { code: '202' }))).toBe('retryable')
    expect(classifyError(new Error('Code: 241. DB::Exception: Memory limit exceeded'))).toBe('retryable')
    expect(classifyError(Object.assign(new Error('bad gateway'), { status: 502 }))).toBe('retryable')
    expect(classifyError(Object.assign(new Error('not found'), { status: 404 }))).toBe('fatal')
    expect(classifyError(new TypeError('x is undefined'))).toBe('fatal')
  })
})
