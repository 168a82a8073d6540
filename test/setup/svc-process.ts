import { spawn } from 'node:child_process'
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
