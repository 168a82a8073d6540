/**
 * The real services tests talk to. `global-setup.ts` starts them (or takes them from the
 * environment) before any test file runs; these read what it found.
 */

/** The Kafka broker list (comma separated host:port), as `KAFKA_BROKERS` expects it. */
export function requireKafkaBrokers(): string {
  return required('KAFKA_BROKERS', 'bash infra/kafka.sh start')
}

/** The Kafka brokers as a list, for `createKafkaBus`. */
export function kafkaBrokerList(): string[] {
  return requireKafkaBrokers()
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean)
}

/** The Redis URL (redis://host:port). */
export function requireRedisUrl(): string {
  return required('REDIS_URL', 'bash infra/redis.sh start')
}

/** The bin directory of the venv holding the pinned Python tools (`infra/python/requirements.txt`). */
export function requirePythonToolsBin(): string {
  return required('PYTHON_TOOLS_BIN', 'bash infra/python-tools.sh start')
}

/** Prometheus' promtool (Debian's `prometheus` package), which checks the metrics text format. */
export function requirePromtool(): string {
  return required('PROMTOOL_BIN', 'bash infra/promtool.sh start')
}

/** The class path of ClickHouse's official JDBC driver and its jars (`infra/jdbc/pom.xml`). */
export function requireJdbcClasspath(): string {
  return required('JDBC_CLASSPATH', 'bash infra/jdbc.sh start')
}

function required(name: string, start: string): string {
  const value = process.env[name]
  if (!value) {
    throw new Error(`${name} is not set: the vitest global setup should have set it (or run \`${start}\` and export it)`)
  }
  return value
}
