import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Vitest global setup: makes sure a Kafka broker and a Redis server are up, and the pinned Python
 * tools (schemathesis, clickhouse-connect, kubernetes-validate), promtool and the ClickHouse JDBC driver installed, before any test
 * file runs. Variables already in the environment are used as they are; otherwise
 * `infra/kafka.sh start` and `infra/redis.sh start` run (installing what is missing, reusing
 * what already runs) and their `NAME=value` lines go into process.env, which the forked
 * test workers inherit. The services are left running afterwards: the next run reuses them.
 */
export default async function setup(): Promise<void> {
  const wanted: Array<[name: string, script: string]> = [
    ['KAFKA_BROKERS', 'infra/kafka.sh'],
    ['REDIS_URL', 'infra/redis.sh'],
    ['PYTHON_TOOLS_BIN', 'infra/python-tools.sh'],
    ['PROMTOOL_BIN', 'infra/promtool.sh'],
    ['JDBC_CLASSPATH', 'infra/jdbc.sh'],
  ]
  await Promise.all(
    wanted
      .filter(([name]) => !process.env[name])
      .map(async ([name, script]) => {
        process.env[name] = await startService(name, script)
      }),
  )
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

function startService(name: string, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    // stderr goes straight through: a first install shows its progress.
    const child = spawn('bash', [script, 'start'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => (out += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? ''
      const prefix = `${name}=`
      if (code === 0 && line.startsWith(prefix)) {
        const seconds = ((Date.now() - started) / 1000).toFixed(1)
        console.log(`[global-setup] ${line} (${seconds}s)`)
        resolve(line.slice(prefix.length))
      } else {
        reject(new Error(`bash ${script} start exited with ${code} and printed no ${prefix} line:\n${out}`))
      }
    })
  })
}
