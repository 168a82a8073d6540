import { parseArgs } from 'node:util'
import pino from 'pino'
import { ConfigError, type Config } from '../core/config.ts'
import { superviseEngine } from '../infra/engine/supervise.ts'

/** ClickHouse's own default ports, shifted by 10000 like the infra's Kafka (19092) and Redis (16379). */
const DEFAULT_HTTP_PORT = 18123
const DEFAULT_TCP_PORT = 19000

/**
 * `svc engine [--http-port N] [--tcp-port N]`: one ClickHouse engine process serving DATA_DIR over
 * ClickHouse's HTTP (and native) interface on 127.0.0.1, for every role to use with
 * CLICKHOUSE_URL. Prints the variables the roles need on stdout once it answers, then runs until
 * SIGTERM/SIGINT, restarting the engine if it dies. Logs go to stderr.
 */
export async function commandEngine(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'http-port': { type: 'string' }, 'tcp-port': { type: 'string' } } })
  const logger = pino({ name: 'svc-engine', level: config.LOG_LEVEL }, pino.destination({ dest: 2, sync: true }))
  const httpPort = port(values['http-port'], DEFAULT_HTTP_PORT, '--http-port')
  const tcpPort = port(values['tcp-port'], DEFAULT_TCP_PORT, '--tcp-port')
  const engine = await superviseEngine({ dataDir: config.DATA_DIR, database: config.CLICKHOUSE_DATABASE, httpPort, tcpPort, logger }).catch((err: Error) => {
    // A port in use, no C compiler, or the engine's own refusal (with its output): the message says it all.
    console.error(`svc engine: ${err.message}`)
    process.exit(1)
  })
  process.stdout.write(
    [
      `CLICKHOUSE_URL=${engine.url}`,
      `CLICKHOUSE_USER=${engine.user}`,
      `CLICKHOUSE_PASSWORD=${engine.credentials.svc}`,
      // The read-only user the API's SQL door runs analysts' queries as.
      'CLICKHOUSE_ANALYST_USER=analyst',
      `CLICKHOUSE_ANALYST_PASSWORD=${engine.credentials.analyst}`,
      '',
    ].join('\n'),
  )
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping the engine')
    await engine.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

function port(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`svc engine ${flag} must be a port 0-65535, not ${JSON.stringify(value)}`)
  return n
}
