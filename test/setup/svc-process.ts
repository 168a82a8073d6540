import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'

const SVC = join(import.meta.dirname, '../../bin/svc.js')

export interface ProcessResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Run `svc <args>` as a child process with extra environment, to completion (or timeout). */
export function runSvc(args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
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

/** A TCP port free at the moment of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export interface SvcServer {
  base: string
  child: ChildProcess
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>
}

/** `svc <args>` (start or api) as a long-running child on `port`, once its /health answers 200. */
export async function startSvcServer(args: string[], port: number, env: Record<string, string>, timeoutMs = 90_000): Promise<SvcServer> {
  const child = spawn(process.execPath, [SVC, ...args], { env: { ...process.env, PORT: String(port), ...env }, stdio: 'ignore' })
  const base = `http://127.0.0.1:${port}`
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc ${args.join(' ')} exited with ${child.exitCode} before listening`)
    try {
      if ((await fetch(`${base}/health`)).status === 200) return { base, child, stop }
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`svc ${args.join(' ')} on ${port} did not start in ${timeoutMs} ms`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}
