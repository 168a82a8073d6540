import { parseArgs } from 'node:util'
import { ConfigError, type Config } from '../core/config.ts'
import { createClickHouse } from '../core/clickhouse.ts'
import { migrate } from '../sql/migrate.ts'
import { formatReport, runVerify } from '../pipelines/verify/run-verify.ts'
import { AUDITED_VIEWS } from '../core/records/verify-report.ts'
import type { VerifyOptions, VerifyReport } from '../core/records/verify-report.ts'

/**
 * `svc verify`: audit the kept views against their raw rows and print per view the keys checked,
 * the keys drifted and the first drifted keys with both values; exit 1 on drift (after a repair:
 * on drift the repair left). Reads CLICKHOUSE_URL, or the embedded DATA_DIR while the service is
 * stopped; `--base URL` asks a running service (POST /admin/verify with SVC_ADMIN_TOKEN).
 */
export async function commandVerify(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      sample: { type: 'string' }, seed: { type: 'string' }, view: { type: 'string', multiple: true }, first: { type: 'string' },
      repair: { type: 'boolean' }, base: { type: 'string' }, json: { type: 'boolean' },
    },
  })
  const opts: VerifyOptions = { repair: values.repair ?? false }
  if (values.sample !== undefined) {
    const s = Number(values.sample)
    if (!(s > 0 && s <= 1)) throw new ConfigError(`svc verify --sample: a fraction in (0, 1], got ${values.sample}`)
    opts.sample = s
  }
  if (values.seed !== undefined) opts.seed = wholeNumber('--seed', values.seed)
  if (values.first !== undefined) opts.first = wholeNumber('--first', values.first)
  if (values.view) {
    const unknown = values.view.filter((v) => !(AUDITED_VIEWS as readonly string[]).includes(v))
    if (unknown.length) throw new ConfigError(`svc verify --view: unknown ${unknown.join(', ')}; views: ${AUDITED_VIEWS.join(', ')}`)
    opts.views = values.view
  }
  const report = values.base ? await verifyAt(values.base, config, opts) : await verifyHere(config, opts)
  console.log(values.json ? JSON.stringify(report) : formatReport(report))
  if (report.drifted > 0) process.exitCode = 1
}

function wholeNumber(flag: string, v: string): number {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`svc verify ${flag}: a whole number, got ${v}`)
  return n
}

async function verifyHere(config: Config, opts: VerifyOptions): Promise<VerifyReport> {
  let ch
  try {
    ch = await createClickHouse(config)
  } catch (err) {
    // chDB keeps one process per data dir: a running service holds it.
    if (config.CLICKHOUSE_URL) throw err
    throw new ConfigError(`svc verify: cannot open DATA_DIR ${config.DATA_DIR} (${(err as Error).message.split('\n')[0]}); while the service runs, use svc verify --base http://HOST:PORT`)
  }
  try {
    await migrate(ch)
    return await runVerify(ch, opts)
  } finally {
    await ch.close()
  }
}

async function verifyAt(base: string, config: Config, opts: VerifyOptions): Promise<VerifyReport> {
  if (!config.SVC_ADMIN_TOKEN) throw new ConfigError('svc verify --base: set SVC_ADMIN_TOKEN to the service\'s admin token')
  const res = await fetch(new URL('/admin/verify', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${config.SVC_ADMIN_TOKEN}` },
    body: JSON.stringify(opts),
  })
  const body = (await res.json().catch(() => null)) as (VerifyReport & { error?: { message?: string } }) | null
  if (!res.ok || !body) throw new ConfigError(`svc verify --base: ${res.status} ${body?.error?.message ?? res.statusText}`)
  return body
}
