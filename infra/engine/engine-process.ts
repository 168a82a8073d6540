import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import type { EngineFiles } from './engine-files.ts'

/** The id of the statement that keeps the engine serving; killing it is the clean stop. */
export const SERVING_QUERY_ID = 'svc-engine-serve'

/**
 * Start the listeners, then block: one row a second of an unbounded numbers table, one row per
 * block (sleepEachRow refuses more than 3 s of sleep in one block).
 */
const SERVING_QUERY = 'SYSTEM START LISTEN QUERIES ALL; SELECT sleepEachRow(1) FROM system.numbers SETTINGS max_block_size = 1 FORMAT Null'

export interface EngineProcessOptions {
  binary: string
  files: EngineFiles
  httpPort: number
  tcpPort: number
  /** How long to wait for /ping after the spawn. */
  readyTimeoutMs?: number
}

export interface EngineExit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface EngineProcess {
  pid: number
  url: string
  /** Settles when the process exits, for whatever reason. */
  exited: Promise<EngineExit>
  /** Kill the serving statement and wait for the exit (TERM, then KILL, if it does not come). */
  stop(timeoutMs?: number): Promise<EngineExit>
}

/** One engine process on the files' data path, resolved once it answers /ping. */
export async function startEngineProcess(opts: EngineProcessOptions): Promise<EngineProcess> {
  const { files } = opts
  const url = `http://127.0.0.1:${opts.httpPort}`
  const output = openSync(files.outputPath, 'a')
  const outputStart = statSync(files.outputPath).size
  let child: ChildProcess
  try {
    child = spawn(
      opts.binary,
      [
        `--config-file=${files.configPath}`,
        // clickhouse-local logs at trace level whatever the config says (tens of MB a minute under load).
        '--log-level=information',
        `--path=${files.clickhousePath}`,
        `--http_port=${opts.httpPort}`,
        `--tcp_port=${opts.tcpPort}`,
        '--listen_host=127.0.0.1',
        `--query_id=${SERVING_QUERY_ID}`,
        `--query=${SERVING_QUERY}`,
      ],
      // Its own process group: a terminal's Ctrl-C (SIGINT to the group) reaches the supervisor,
      // which stops the engine cleanly, instead of killing the engine mid-write.
      { detached: true, stdio: ['ignore', output, output], env: { ...process.env, SVC_ENGINE_PARENT_PID: String(process.pid) } },
    )
  } finally {
    closeSync(output)
  }
  const exited = new Promise<EngineExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    child.once('error', () => resolve({ code: null, signal: null }))
  })
  let done: EngineExit | undefined
  void exited.then((e) => (done = e))

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000)
  for (;;) {
    if (done) throw new Error(`the engine exited (${describeExit(done)}) before answering /ping\n${engineDiagnostics(files, outputStart)}`)
    if (await answersPing(url)) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      await exited
      throw new Error(`the engine did not answer ${url}/ping in ${opts.readyTimeoutMs ?? 60_000} ms\n${engineDiagnostics(files, outputStart)}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }

  return {
    pid: child.pid!,
    url,
    exited,
    async stop(timeoutMs = 15_000) {
      if (done) return done
      // Connection: close, here and on /ping: a connection left open when the serving statement
      // ends holds the engine's exit for 5 s.
      await post(url, `KILL QUERY WHERE query_id = '${SERVING_QUERY_ID}' SYNC`, files.credentials.svc).catch(() => undefined)
      const gone = await Promise.race([exited, delay(timeoutMs, undefined, { ref: false })])
      if (gone) return gone
      child.kill('SIGTERM')
      const termed = await Promise.race([exited, delay(5_000, undefined, { ref: false })])
      if (termed) return termed
      child.kill('SIGKILL')
      return exited
    },
  }
}

export function describeExit(e: EngineExit): string {
  return e.signal ? `signal ${e.signal}` : `code ${e.code}`
}

/** Where to look, and the last lines there: the entry point itself reports little. */
export function engineDiagnostics(files: EngineFiles, outputFrom = 0): string {
  const parts = [`engine output (${files.outputPath}):\n${tail(files.outputPath, outputFrom)}`]
  parts.push(`engine error log (${files.errorLogPath}):\n${tail(files.errorLogPath)}`)
  parts.push(`engine log: ${files.logPath}`)
  return parts.join('\n')
}

function tail(path: string, from = 0, lines = 15): string {
  if (!existsSync(path)) return '(none)'
  const text = readFileSync(path, 'utf8').slice(from)
  return text.trimEnd().split('\n').slice(-lines).map((l) => `  ${l.slice(0, 500)}`).join('\n') || '(empty)'
}

function answersPing(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/ping`, { agent: false, headers: { connection: 'close' }, timeout: 2_000 }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode === 200))
    })
    req.on('error', () => resolve(false))
    req.on('timeout', () => req.destroy())
    req.end()
  })
}

/** One statement as the service user, on a connection closed after the answer. */
export function post(url: string, sql: string, password: string, user = 'svc'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, auth: `${user}:${password}`, headers: { connection: 'close' }, timeout: 30_000 },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d) => (body += d))
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}: ${body.trim()}`))))
      },
    )
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.end(sql)
  })
}
