import { spawnSvc, freePort, type SvcChild } from './svc-process.ts'
import { until } from './until.ts'

export interface TestEngine {
  svc: SvcChild
  /** The CLICKHOUSE_* variables as `svc engine` printed them (the service's user and the analyst's). */
  env: { CLICKHOUSE_URL: string; CLICKHOUSE_USER: string; CLICKHOUSE_PASSWORD: string; CLICKHOUSE_ANALYST_USER: string; CLICKHOUSE_ANALYST_PASSWORD: string }
  httpPort: number
  tcpPort: number
}

/**
 * `svc engine` on a data dir as a child process, once it printed its variables (it prints them
 * after /ping answers). Ports: free ones unless given (a restart reuses the first run's).
 */
export async function startTestEngine(dataDir: string, ports?: { httpPort: number; tcpPort: number }): Promise<TestEngine> {
  const httpPort = ports?.httpPort ?? (await freePort())
  const tcpPort = ports?.tcpPort ?? (await freePort())
  const svc = spawnSvc(['engine', '--http-port', String(httpPort), '--tcp-port', String(tcpPort)], { DATA_DIR: dataDir, LOG_LEVEL: 'info' })
  let exited = false
  void svc.exited.then(() => (exited = true))
  const text = await until(
    'svc engine to print its CLICKHOUSE_* variables',
    () => {
      if (exited) throw new Error(`svc engine exited before serving:\n${svc.output()}`)
      return /^CLICKHOUSE_ANALYST_PASSWORD=/m.test(svc.output()) ? svc.output() : undefined
    },
    60_000,
  )
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(text)![1]!
  return {
    svc,
    httpPort,
    tcpPort,
    env: {
      CLICKHOUSE_URL: value('CLICKHOUSE_URL'),
      CLICKHOUSE_USER: value('CLICKHOUSE_USER'),
      CLICKHOUSE_PASSWORD: value('CLICKHOUSE_PASSWORD'),
      CLICKHOUSE_ANALYST_USER: value('CLICKHOUSE_ANALYST_USER'),
      CLICKHOUSE_ANALYST_PASSWORD: value('CLICKHOUSE_ANALYST_PASSWORD'),
    },
  }
}
