import { createServer } from 'node:net'
import type { Logger } from 'pino'
import { engineBinary } from './engine-binary.ts'
import { prepareEngineFiles, type EngineCredentials, type EngineFiles } from './engine-files.ts'
import { describeExit, engineDiagnostics, startEngineProcess, type EngineProcess } from './engine-process.ts'

export interface EngineOptions {
  dataDir: string
  database: string
  /** 0: any free port. A port given and taken is an error (the roles are pointed at it). */
  httpPort: number
  tcpPort: number
  /**
   * Ports a free pick (0) must not take: the API's own, which it binds only after the engine is
   * up (a pick of the same free port made `svc start` fail with EADDRINUSE once in CI).
   */
  reserved?: number[]
  logger: Logger
}

export interface SupervisedEngine {
  url: string
  user: string
  credentials: EngineCredentials
  files: EngineFiles
  /** The engine process serving now (a new one after a restart). */
  current(): EngineProcess | undefined
  /** Stop supervising, stop the engine cleanly and wait for it. */
  stop(): Promise<void>
}

/** A crashed engine restarts after 1 s, doubling to at most 30 s; a run of a minute resets it. */
const BACKOFF_MS = { first: 1_000, max: 30_000, healthyRunMs: 60_000 }

/**
 * `svc engine`: the engine process on DATA_DIR, started and health-checked (resolves once the
 * first one answers /ping), restarted with backoff when it dies, and stopped cleanly.
 */
export async function superviseEngine(opts: EngineOptions): Promise<SupervisedEngine> {
  const { logger } = opts
  const binary = await engineBinary()
  const files = prepareEngineFiles(opts.dataDir, opts.database)
  const reserved = new Set(opts.reserved ?? [])
  const httpPort = await usablePort(opts.httpPort, 'HTTP', reserved)
  const tcpPort = await usablePort(opts.tcpPort, 'native (TCP)', new Set([...reserved, httpPort]))
  const start = () => startEngineProcess({ binary, files, httpPort, tcpPort })

  let proc: EngineProcess | undefined = await start()
  let stopping = false
  let wake: (() => void) | undefined
  logger.info({ engine_pid: proc.pid, url: proc.url, tcp_port: tcpPort, data: files.clickhousePath, log: files.logPath }, 'engine serving')

  const loop = (async () => {
    let delay = BACKOFF_MS.first
    while (!stopping) {
      const startedAt = Date.now()
      const exit = await proc!.exited
      proc = undefined
      if (stopping) return
      if (Date.now() - startedAt > BACKOFF_MS.healthyRunMs) delay = BACKOFF_MS.first
      logger.error({ exit: describeExit(exit), restart_in_ms: delay }, `engine exited unexpectedly\n${engineDiagnostics(files)}`)
      await new Promise<void>((r) => {
        wake = r
        setTimeout(r, delay)
      })
      delay = Math.min(delay * 2, BACKOFF_MS.max)
      while (!stopping && !proc) {
        try {
          proc = await start()
          logger.info({ engine_pid: proc.pid }, 'engine restarted')
        } catch (err) {
          logger.error({ err: (err as Error).message, restart_in_ms: delay }, 'engine restart failed')
          await new Promise<void>((r) => {
            wake = r
            setTimeout(r, delay)
          })
          delay = Math.min(delay * 2, BACKOFF_MS.max)
        }
      }
      if (stopping && proc) await proc.stop()
    }
  })()

  return {
    url: `http://127.0.0.1:${httpPort}`,
    user: 'svc',
    credentials: files.credentials,
    files,
    current: () => proc,
    async stop() {
      stopping = true
      wake?.()
      const running = proc
      if (running) {
        const exit = await running.stop()
        logger.info({ exit: describeExit(exit) }, 'engine stopped')
      }
      await loop
    },
  }
}

/** The port when free (any free one not reserved for 0); a port in use is an error naming it. */
async function usablePort(port: number, what: string, reserved: ReadonlySet<number>): Promise<number> {
  for (;;) {
    const picked = await bindOnce(port)
    if (picked instanceof Error) throw new Error(`the ${what} port ${port} on 127.0.0.1 is in use (${picked.message}); choose another`)
    if (port !== 0 || !reserved.has(picked)) return picked
  }
}

function bindOnce(port: number): Promise<number | Error> {
  return new Promise<number | Error>((resolve) => {
    const s = createServer()
    s.once('error', (err) => resolve(err))
    s.listen(port, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}
