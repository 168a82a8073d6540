import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { parseError } from '@clickhouse/client'
import { openSync } from 'node:fs'
import { Kafka, logLevel } from 'kafkajs'
import { classifyError, clickHouseCode, infraKind } from '../../pipelines/consumer/classify-error.ts'
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

  it('infraKind() calls what exhausted the machine an infrastructure fault, as the engine and Node raise it', async () => {
    // chDB's own words when the process is out of descriptors (seen under `ulimit -n`), reshaped
    // by its connection exactly as here.
    expect(infraKind(parseError('Code: 573. DB::Exception: Cannot open epoll descriptor: , errno: 24, strerror: Too many open files. (EPOLL_ERROR)'))).toBe('fd_exhausted')
    expect(infraKind(parseError('Code: 76. DB::ErrnoException: Cannot open file /data/store/tmp_insert_all_1_1_0/n.bin, errno: 24, strerror: Too many open files. (CANNOT_OPEN_FILE)'))).toBe('fd_exhausted')
    expect(infraKind(parseError('Code: 1001. DB::Exception: std::__1::system_error: thread constructor failed: Resource temporarily unavailable. (STD_EXCEPTION)'))).toBe('os')
    expect(infraKind(parseError('Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)'))).toBe('disk_full')
    expect(infraKind(parseError('Code: 75. DB::ErrnoException: Cannot write to file /data/x.bin, errno: 28, strerror: No space left on device. (CANNOT_WRITE_TO_FILE_DESCRIPTOR)'))).toBe('disk_full')
    expect(infraKind(parseError('Code: 159. DB::Exception: Timeout exceeded: elapsed 5.1 seconds, maximum: 5. (TIMEOUT_EXCEEDED)'))).toBe('timeout')
    expect(infraKind(parseError('Code: 241. DB::Exception: Memory limit (total) exceeded: would use 3.5 GiB. (MEMORY_LIMIT_EXCEEDED)'))).toBe('memory')
    expect(infraKind(parseError('Code: 210. DB::NetException: Connection refused (127.0.0.1:9000). (NETWORK_ERROR)'))).toBe('network')
    // Node's own, from a real system call: a missing file is the machine's state, not a record.
    const enoent = (() => { try { openSync('/nonexistent/infra-faults', 'r') } catch (err) { return err } })()
    expect(infraKind(enoent)).toBe('os')
    for (const [code, kind] of [['EMFILE', 'fd_exhausted'], ['ENFILE', 'fd_exhausted'], ['ENOSPC', 'disk_full'], ['EAGAIN', 'os'], ['EPIPE', 'network'], ['ECONNRESET', 'network'], ['ETIMEDOUT', 'timeout']] as const) {
      expect(infraKind(Object.assign(new Error(`${code}: failed, open '/data/x'`), { code, errno: -24, syscall: 'open' })), code).toBe(kind)
    }
    // Wrapped: the cause decides.
    expect(infraKind(new Error('insert failed', { cause: Object.assign(new Error('EMFILE'), { code: 'EMFILE', syscall: 'open' }) }))).toBe('fd_exhausted')
  })

  it('infraKind() calls a broker that cannot be reached a broker fault (a real kafkajs client to a closed port)', async () => {
    const kafka = new Kafka({ clientId: 'classify-test', brokers: [`127.0.0.1:${await freePort()}`], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 300 })
    const producer = kafka.producer()
    const err = await rejection(producer.connect())
    expect(infraKind(err)).toBe('broker')
    expect(classifyError(err)).toBe('retryable')
  })

  it('infraKind() leaves a record ClickHouse refused a fatal error even when its quoted values read like an outage', async () => {
    const err = await rejection(ch.insert({ table: 't', values: [{ n: 'Too many open files, errno: 24', d: 'connection refused' }], format: 'JSONEachRow' }))
    expect(String((err as Error).message)).toContain('Too many open files')
    expect(infraKind(err)).toBeNull()
    expect(classifyError(err)).toBe('fatal')
    // A statement the engine refuses is not the environment either.
    expect(infraKind(await rejection(ch.query({ query: 'SELECT nope FROM t' })))).toBeNull()
  })
})
