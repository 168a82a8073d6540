import { fork } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { linkOver } from '../../bin/process-link.ts'
import { isDependencyUnavailable } from '../../core/dependency.ts'

/** bin/process-link.ts over a real IPC channel to a forked process (test/setup/link-peer.ts). */
const peer = fork(join(import.meta.dirname, '../setup/link-peer.ts'), [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const link = linkOver(peer)
afterAll(() => {
  peer.kill()
})

describe('the link between two processes of the service', () => {
  it('answers requests with structured values (bigints included)', async () => {
    const value = { n: 12345678901234567890n, list: [1, 'two', null], nested: { ok: true } }
    expect(await link.request('echo', value)).toEqual(value)
  })

  it('gives what was told before anyone heard it, in order, once a hearer comes', async () => {
    const heard: unknown[] = []
    await link.request('echo', 'after the early news')
    link.onTell('early', (v) => heard.push(v))
    expect(heard).toEqual([1, 2])
    const pong = new Promise((resolve) => link.onTell('pong', resolve))
    link.tell('ping', 7)
    expect(await pong).toBe(7)
  })

  it('fails a request as it failed there: a dependency that did not answer stays one (a 503)', async () => {
    const down = await link.request('store-down').catch((e: unknown) => e)
    expect(isDependencyUnavailable(down)).toBe(true)
    expect((down as Error).message).toBe('store unavailable: connection refused')
    const plain = await link.request('fails').catch((e: unknown) => e)
    expect(isDependencyUnavailable(plain)).toBe(false)
    expect((plain as Error).message).toBe('plain failure')
    await expect(link.request('nobody-answers-this')).rejects.toThrow('nothing answers nobody-answers-this')
    // An answer the channel cannot carry fails its request at once, not at the timeout.
    await expect(link.request('uncarried', undefined, 5_000)).rejects.toThrow(/could not be cloned/)
  })

  it('fails a request at once when the other process is gone, and one it never answers after its timeout', async () => {
    await expect(link.request('never', undefined, 50)).rejects.toThrow('never: the other process of the service did not answer within 50 ms')
    await link.request('exit')
    await new Promise((resolve) => peer.once('exit', resolve))
    await expect(link.request('echo', 1)).rejects.toThrow('the other process of the service is gone')
  })
})
