import { spawn, type ChildProcess } from 'node:child_process'
import { Socket } from 'node:net'
import { freePort } from './svc-process.ts'
import { tempDir } from './temp.ts'

/**
 * A redis-server of the test's own, on a free port, for tests that stop, freeze or empty it:
 * the shared Redis other tests and agents use is never touched. No persistence, so a restart
 * comes back empty.
 */
export interface OwnRedis {
  url: string
  port: number
  /** Stop the server (SIGTERM) and wait for it to exit. */
  stop(): Promise<void>
  /** Start it again on the same port, empty. */
  start(): Promise<void>
  /** SIGSTOP: connections stay open and nothing answers (a hung server). */
  freeze(): void
  thaw(): void
  /** Stop for good and remove its directory. */
  dispose(): Promise<void>
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort()
  const dir = tempDir('svc-own-redis-')
  let child: ChildProcess | null = null
  const killOnExit = () => child?.kill('SIGKILL')
  process.once('exit', killOnExit)

  async function start(): Promise<void> {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.path, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
    const deadline = Date.now() + 10_000
    while (!(await answersPing(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not answer PING in 10 s`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  async function stop(): Promise<void> {
    const c = child
    child = null
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    c.kill('SIGCONT')
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve())
      c.kill('SIGTERM')
    })
  }

  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    async dispose() {
      await stop()
      process.removeListener('exit', killOnExit)
      dir.cleanup()
    },
  }
}

/** True when something on the port answers PING with PONG within half a second. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket()
    const done = (ok: boolean) => {
      s.destroy()
      resolve(ok)
    }
    s.setTimeout(500, () => done(false))
    s.once('error', () => done(false))
    s.once('data', (d) => done(d.toString().startsWith('+PONG')))
    s.connect(port, '127.0.0.1', () => s.write('PING\r\n'))
  })
}
