import { spawn } from 'node:child_process'
import { join } from 'node:path'

/**
 * Run one of the benches' load processes (`bench/<script>` with its plan file) apart from the
 * bench, so the service is driven from outside as its users would; resolves with the report it
 * prints as its last line of JSON.
 */
export function runDriverProcess<T>(script: string, planFile: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, script), planFile], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T) : reject(new Error(`${script} exited with ${code}`))))
  })
}
