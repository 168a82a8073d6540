import { appendFileSync } from 'node:fs'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { SERVICE_NODE_FLAGS } from '../../bin/node-flags.ts'

const SVC = join(import.meta.dirname, '../../bin/svc.js')

export interface ProcessResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * Run `svc <args>` as a child process with extra environment, to completion (or timeout); with
 * `nofile`, under that limit of open files (`ulimit -n`).
 */
export function runSvc(args: string[], env: Record<string, string>, timeoutMs = 120_000, opts: { nofile?: number } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const options = { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'] }
    const child =
      opts.nofile === undefined
        ? spawn(process.execPath, [...SERVICE_NODE_FLAGS, SVC, ...args], options)
        : spawn('bash', ['-c', `ulimit -n ${opts.nofile} && exec "$0" "$@"`, process.execPath, ...SERVICE_NODE_FLAGS, SVC, ...args], options)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`svc ${args.join(' ')} timed out after ${timeoutMs} ms\n${stdout}\n${stderr}`))
    }, timeoutMs)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

/**
 * A loopback TCP port free at the moment of asking, from a block of its own per test worker,
 * below the kernel's ephemeral range (32768 and up): a port the kernel hands out for "any free
 * port" (an engine's, a broker's, another worker's outgoing socket) is never one a test chose,
 * and two workers never choose the same one. CI once had a test's service answer from a port a
 * neighbour's service held: its /health said 200 and its operator route refused our token.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? 0) % WORKER_BLOCKS
  const first = TEST_PORTS_FROM + worker * PORTS_PER_WORKER
  for (let tries = 0; tries < PORTS_PER_WORKER; tries++) {
    const port = first + (nextPortOffset++ % PORTS_PER_WORKER)
    if (await bindable(port)) return port
  }
  throw new Error(`no free loopback port in ${first}-${first + PORTS_PER_WORKER - 1}`)
}

const TEST_PORTS_FROM = 21_000
const PORTS_PER_WORKER = 1_500
const WORKER_BLOCKS = 7 // 21000 + 7 × 1500 = 31500, below the ephemeral range
// A random start: a file after another in the same worker does not walk the ports its
// predecessor may still be letting go of.
let nextPortOffset = Math.floor(Math.random() * PORTS_PER_WORKER)

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

export interface SvcServer {
  base: string
  child: ChildProcess
  /**
   * SIGTERM, then wait for the exit (SIGKILL after `hardKillMs`, default 20 s: a test never leaves
   * a server behind).
   */
  stop(hardKillMs?: number): Promise<void>
  /** The last lines the process printed (for a failing test's message). */
  output(): string
  /** Whether the process ever printed `text` (its whole output, not only the last lines). */
  said(text: string): boolean
}

/**
 * `svc <args>` (start or api) as a long-running child on `port`, once its /health answers 200
 * (or, with `ready`, a status it accepts: a test of a dependency that is down waits for the 503).
 */
export async function startSvcServer(
  args: string[],
  port: number,
  env: Record<string, string>,
  timeoutMs = 90_000,
  ready: (status: number) => boolean = (status) => status === 200,
): Promise<SvcServer> {
  const { child, output, said } = spawnKept(args, { PORT: String(port), ...env })
  const base = `http://127.0.0.1:${port}`
  const stop = (hardKillMs = 20_000) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      const hard = setTimeout(() => child.kill('SIGKILL'), hardKillMs)
      child.once('exit', () => {
        clearTimeout(hard)
        resolve()
      })
      child.kill('SIGTERM')
    })
  const describe = () => `svc ${args.join(' ')} on ${port}`
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${describe()} exited with ${child.exitCode} before listening:\n${output()}`)
    try {
      if (ready((await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) })).status)) return { base, child, stop, output, said }
    } catch {
      // not listening (or not answering) yet
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${describe()} did not start in ${timeoutMs} ms:\n${output()}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}

export interface SvcChild {
  child: ChildProcess
  /** Resolves with the exit code and signal (already resolved when it has exited). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGTERM (SIGKILL after 20 s) and wait for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** The last lines the process printed. */
  output(): string
}

/** `svc <args>` as a long-running child without an HTTP port (sim, pipeline roles). */
export function spawnSvc(args: string[], env: Record<string, string>): SvcChild {
  const { child, output } = spawnKept(args, env)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return {
    child,
    exited,
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const hard = setTimeout(() => child.kill('SIGKILL'), 20_000)
        child.kill('SIGTERM')
        await exited
        clearTimeout(hard)
      }
      return exited
    },
  }
}

/**
 * `svc <args>` as a child whose pipes are drained for its whole life (a full pipe would block it),
 * keeping the last 8000 characters printed (and all of it under SVC_TEST_LOG_DIR), and killed if the test process exits first (a test
 * that times out never runs its cleanup).
 */
function spawnKept(args: string[], env: Record<string, string>): { child: ChildProcess; output(): string; said(text: string): boolean } {
  // SVC_NODE_ARGS: node flags for the service process, e.g. `--cpu-prof` to profile it under a bench.
  const nodeArgs = (process.env.SVC_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...nodeArgs, SVC, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let tail = ''
  let all = ''
  // SVC_TEST_LOG_DIR: keep each child's whole output there too (the tail is all a failure prints).
  const logFile = process.env.SVC_TEST_LOG_DIR ? `${process.env.SVC_TEST_LOG_DIR}/${args.join('-')}-${child.pid}.log` : undefined
  const keep = (d: Buffer) => {
    const text = d.toString()
    tail = (tail + text).slice(-8000)
    all += text
    if (logFile) appendFileSync(logFile, d)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  child.once('exit', () => process.removeListener('exit', killOnExit))
  return { child, output: () => tail, said: (text) => all.includes(text) }
}
