import { spawn } from 'node:child_process'

/** Run a client program of the data team's (Python, Java) to its end: exit code and both outputs. */
export function runProgram(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', reject)
    child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }))
  })
}
