import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../setup/temp.ts'

/**
 * infra/up.sh's own logic, run from a copy beside stand-in service scripts (the real ones would
 * start or stop the services every test shares): every service must start for it to print
 * anything, and a failure is named with its reason and exit 1, also through the form docs/operators.md gives.
 */
const root = join(import.meta.dirname, '../..')
const dirs: Array<{ cleanup(): void }> = []
afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()))

const ok = (line: string) => `echo "[svc] started" >&2; echo "${line}"`
const fails = (why: string) => `echo "[svc] error: ${why}" >&2; exit 1`
/** The engine prints three lines (its URL, user and password), after a line of its own. */
const engine = 'echo "[engine] listening"; echo "CLICKHOUSE_URL=http://127.0.0.1:3"; echo "CLICKHOUSE_USER=svc"; echo "CLICKHOUSE_PASSWORD=p"'

function infraWith(scripts: Record<string, string>): string {
  const d = tempDir('svc-up-')
  dirs.push(d)
  const infra = join(d.path, 'infra')
  mkdirSync(infra)
  copyFileSync(join(root, 'infra/up.sh'), join(infra, 'up.sh'))
  for (const [name, body] of Object.entries(scripts)) writeFileSync(join(infra, name), `#!/usr/bin/env bash\n${body}\n`)
  return d.path
}

function run(cwd: string, script: string) {
  return spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8', timeout: 30_000 })
}

describe('infra/up.sh', () => {
  it('prints each service\'s NAME=value line when every one started', () => {
    const cwd = infraWith({ 'kafka.sh': ok('KAFKA_BROKERS=127.0.0.1:1'), 'redis.sh': ok('REDIS_URL=redis://127.0.0.1:2'), 'engine.sh': engine })
    const r = run(cwd, 'bash infra/up.sh')
    expect(r.status).toBe(0)
    expect(r.stdout).toBe('KAFKA_BROKERS=127.0.0.1:1\nREDIS_URL=redis://127.0.0.1:2\nCLICKHOUSE_URL=http://127.0.0.1:3\nCLICKHOUSE_USER=svc\nCLICKHOUSE_PASSWORD=p\n')
  })

  it('exits 1, prints nothing to export and names the service and its reason when one fails', () => {
    const cwd = infraWith({ 'kafka.sh': fails('argument --cluster-id/-t: expected one argument'), 'redis.sh': ok('REDIS_URL=redis://127.0.0.1:2'), 'engine.sh': engine })
    const r = run(cwd, 'bash infra/up.sh')
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain('[svc] error: argument --cluster-id/-t: expected one argument')
    expect(r.stderr).toContain('[up] error: did not start: kafka (exit 1)')
  })

  it('treats a service that exits 0 without its NAME=value line as failed', () => {
    const cwd = infraWith({ 'kafka.sh': ok('KAFKA_BROKERS=127.0.0.1:1'), 'redis.sh': 'echo "[redis] hm" >&2', 'engine.sh': engine })
    const r = run(cwd, 'bash infra/up.sh')
    expect(r.status).toBe(1)
    expect(r.stderr).toContain('redis (printed no NAME=value line)')
  })

  it('the operators\' page\'s form exports the variables, and stops loudly with nothing exported when a service fails', () => {
    // The distributed section's first line, as pasted: up.sh, then the roles in `&& { ... }`.
    const readme = readFileSync(join(root, 'docs/operators.md'), 'utf8')
    const line = readme.split('\n').find((l) => l.startsWith('bash infra/up.sh > svc.env'))!
    expect(line).toMatch(/ && \{$/)
    const form = `${line} echo "brokers=$KAFKA_BROKERS"; }`
    const good = run(infraWith({ 'kafka.sh': ok('KAFKA_BROKERS=127.0.0.1:1'), 'redis.sh': ok('REDIS_URL=redis://127.0.0.1:2'), 'engine.sh': engine }), `${form}; bash -c 'echo "child sees $REDIS_URL $CLICKHOUSE_URL"'`)
    expect(good.stdout).toContain('brokers=127.0.0.1:1')
    expect(good.stdout).toContain('child sees redis://127.0.0.1:2 http://127.0.0.1:3')
    const bad = run(infraWith({ 'kafka.sh': ok('KAFKA_BROKERS=127.0.0.1:1'), 'redis.sh': fails('redis-server is missing'), 'engine.sh': engine }), form)
    expect(bad.status).toBe(1)
    expect(bad.stdout).not.toContain('brokers=')
    expect(bad.stderr).toContain('[up] error: did not start: redis (exit 1)')
  })
})
