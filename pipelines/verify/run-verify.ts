import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { forLongStatements, queryRows } from '../../core/clickhouse.ts'
import { isDependencyUnavailable } from '../../core/dependency.ts'
import { chainsIngested } from '../../core/records/data-clock.ts'
import { VIEW_CHECKS } from './view-checks.ts'
import { chainsChecked, type Drift, type Sampler, type VerifyOptions, type VerifyReport, type ViewCheck, type ViewReport } from '../../core/records/verify-report.ts'

/**
 * The audit runner (`svc verify`, POST /admin/verify, the scheduled audit): for each view and
 * chain, one query joins the kept rows to the same figures recomputed from raw rows by key and
 * counts the keys checked and drifted. Reads only; `repair` rebuilds the drifted keys through the
 * view's own repair and checks the view again.
 */

/** Drifted keys a run collects per view (what a repair rebuilds at most at once). */
const MAX_DRIFTED_KEYS = 100_000

export async function runVerify(client: ClickHouseClient, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const started = performance.now()
  // A check over every key of a large view runs for seconds to minutes: on a server, the client that waits for it.
  const ch = await forLongStatements(client)
  const sample = opts.sample ?? 1
  if (!(sample > 0 && sample <= 1)) throw new RangeError(`sample must be in (0, 1], got ${sample}`)
  const seed = opts.seed ?? 0
  const checks = opts.views ? VIEW_CHECKS.filter((c) => opts.views!.includes(c.view)) : VIEW_CHECKS
  const chains = await chainsIngested(ch)
  const views: ViewReport[] = []
  for (const check of checks) {
    for (const chain of chainsChecked(check, chains)) {
      let r = await checkView(ch, check, chain, { sample, seed, first: opts.first ?? 5, maxThreads: opts.maxThreads })
      if (opts.repair && r.drifted > 0) {
        if (!check.repair) {
          r.report.repair_note = 'no rebuild from raw rows for this view: re-ingest the affected blocks'
        } else {
          await check.repair(ch, chain, r.drifts.map((d) => d.key))
          const again = await checkView(ch, check, chain, { sample, seed, first: opts.first ?? 5, maxThreads: opts.maxThreads })
          r = { ...again, report: { ...again.report, repaired: r.drifts.length } }
        }
      }
      views.push(r.report)
    }
  }
  return { sample, seed, views, drifted: views.reduce((s, v) => s + v.drifted, 0), seconds: (performance.now() - started) / 1000 }
}

/** The condition picking a key into the sample: a seeded hash of the key, or every key. */
function sampler(sample: number): Sampler {
  return sample >= 1 ? () => '1' : (expr) => `cityHash64(${expr}, {seed:UInt64}) % 1000000 < {ppm:UInt32}`
}

export interface Checked {
  report: ViewReport
  drifted: number
  /** Every drifted key with both values (up to MAX_DRIFTED_KEYS): what a repair rebuilds. */
  drifts: Drift[]
}

/** One view on one chain: keys checked, keys drifted, the first drifted keys with both values. */
export async function checkView(
  ch: ClickHouseClient,
  check: ViewCheck,
  chain: number | null,
  opts: { sample: number; seed: number; first: number; maxThreads?: number },
): Promise<Checked> {
  const started = performance.now()
  const s = sampler(opts.sample)
  // A side without the key answers defaults (join_use_nulls off): the `has` flags tell a missing row.
  const query = `
    SELECT count() AS checked, countIf(kept != fresh) AS drifted,
           arraySort(x -> x.1, groupArrayIf(${MAX_DRIFTED_KEYS})((key, kept, fresh), kept != fresh)) AS drifts
    FROM (
      SELECT if(k.has, k.key, f.key) AS key, if(k.has, k.v, 'missing') AS kept, if(f.has, f.v, 'missing') AS fresh
      FROM (SELECT key, v, 1 AS has FROM (${check.kept(s)})) AS k
      FULL OUTER JOIN (SELECT key, v, 1 AS has FROM (${check.fresh(s)})) AS f ON k.key = f.key
    )${opts.maxThreads ? ` SETTINGS max_threads = ${Math.max(1, Math.floor(opts.maxThreads))}` : ''}`
  const [row] = await queryRows<{ checked: string; drifted: string; drifts: Array<[string, string, string]> }>(
    ch,
    query,
    { chain: chain ?? 0, seed: opts.seed, ppm: Math.round(opts.sample * 1_000_000) },
  ).catch((err: Error) => {
    // The engine unreachable stays what it is (503 from POST /admin/verify); anything else names the view.
    if (isDependencyUnavailable(err)) throw err
    throw new Error(`verify ${check.view}${chain === null ? '' : ` (chain ${chain})`}: ${err.message}`, { cause: err })
  })
  const drifts: Drift[] = (row?.drifts ?? []).map(([key, kept, fresh]) => ({ key, kept, fresh }))
  const drifted = Number(row?.drifted ?? 0)
  return {
    drifted,
    drifts,
    report: {
      view: check.view, chain, against: check.against, checked: Number(row?.checked ?? 0), drifted,
      first: drifts.slice(0, opts.first), seconds: (performance.now() - started) / 1000,
    },
  }
}

/** The report as an operator reads it: one line per view, then its first drifted keys. */
export function formatReport(r: VerifyReport): string {
  const lines = [`svc verify: ${r.sample >= 1 ? 'all keys' : `sample ${r.sample} (seed ${r.seed})`}, ${r.drifted} drifted key(s), ${r.seconds.toFixed(1)} s`]
  for (const v of r.views) {
    const name = v.chain === null ? v.view : `${v.view} (chain ${v.chain})`
    const repaired = v.repaired === undefined ? '' : `, repaired ${v.repaired}`
    lines.push(`${v.drifted ? 'DRIFT' : 'ok   '} ${name}: ${v.checked} keys checked, ${v.drifted} drifted${repaired} (${v.seconds.toFixed(2)} s; against ${v.against})`)
    for (const d of v.first) lines.push(`        ${d.key}\n          kept:  ${d.kept}\n          fresh: ${d.fresh}`)
    if (v.repair_note) lines.push(`        not repaired: ${v.repair_note}`)
  }
  return lines.join('\n')
}
