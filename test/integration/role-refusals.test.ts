import { describe, expect, it } from 'vitest'
import { requireKafkaBrokers } from '../setup/services.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The roles that serve what other roles write refuse a setup that cannot work: the bus is Kafka
 * (separate processes) but their ClickHouse would be a private engine of their own.
 */
describe('roles that read what other roles write, with Kafka and without a shared engine', () => {
  for (const role of [['api'], ['pipeline', 'scans'], ['pipeline', 'alerts']]) {
    it(`svc ${role.join(' ')} refuses to start, with the fix in the message`, { timeout: 60_000 }, async () => {
      const data = tempDir('svc-refusal-')
      try {
        const r = await runSvc(role, { KAFKA_BROKERS: requireKafkaBrokers(), CLICKHOUSE_URL: '', DATA_DIR: data.path, REDIS_URL: '', LOG_LEVEL: 'info' }, 45_000)
        expect(r.code).toBe(1)
        expect(r.stderr.trim()).toBe(
          `svc: svc ${role.join(' ')} reads what the pipeline roles write, but KAFKA_BROKERS is set and CLICKHOUSE_URL is not: ` +
            `it would read a private engine under DATA_DIR=${data.path} that no other process writes to. ` +
            'Fix: run every role with CLICKHOUSE_URL set to the shared engine that bash infra/up.sh starts and prints ' +
            '(bash infra/up.sh > svc.env && set -a && . ./svc.env && set +a), then start svc ' + role.join(' ') + ' again; ' +
            'or, for everything in one process, unset KAFKA_BROKERS and run svc start.',
        )
        // Refused before opening anything: no engine, no log line.
        expect(r.stdout).toBe('')
      } finally {
        data.cleanup()
      }
    })
  }
})
