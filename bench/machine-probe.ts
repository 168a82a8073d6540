import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { createLogger } from '../core/logger.ts'
import { post } from '../infra/engine/engine-process.ts'
import { superviseEngine } from '../infra/engine/supervise.ts'

/**
 * How fast this machine is at this moment, on a fixed workload shaped like a live batch's: the
 * same engine binary as `svc start`'s, on a fresh data dir of its own, answering a 30-row insert
 * into a table with six materialized views (a live batch's raw inserts are a handful of those;
 * stop 73 measured one at 29-33 ms) and a keyed aggregate read of a dozen keys (planning
 * dominates it, as it does a live batch's reads), each repeated and taken at the median.
 *
 * Machines of this kind have differed by 2x from day to day and by a third within an afternoon
 * (docs/measurements.md): a bench that runs for minutes takes this probe before and after, so a
 * reader sees one cause of that drift when it is there (it does not measure the rest: over two
 * runs a live batch took 180 ms beside probes of 88 and 24 ms, and 235 ms beside 18 and 22). The
 * cause it sees is the filesystem: its root is ext4 without a journal, where creating a file scans
 * past the inodes deleted recently (the kernel's `recently_deleted`, `find_get_block_common`,
 * `find_inode_bit`: half of the machine's busy CPU in `perf` during a slow probe), and a part is
 * a dozen files: the same probe took 26 to 99 ms an insert over twenty minutes, each run after
 * the previous one's data was removed.
 */
export interface MachineSpeed {
  /** Median ms of a 30-row insert through six views. */
  insertMs: number
  /** Median ms of a keyed aggregate read of 12 keys. */
  readMs: number
}

const WARM = 5
const TIMES = 31

/**
 * The probe on a data dir of its own under `parent` (the bench's own temporary dir: the same part of
 * the filesystem as the service's data), left there for the caller to remove with the rest: a
 * removal of thousands of files slows the file creations that follow it on this machine's
 * filesystem (docs/measurements.md, stop 79), which the probe is there to see, not to cause.
 */
export async function probeMachine(parent: string): Promise<MachineSpeed> {
  const dir = mkdtempSync(join(parent, 'machine-probe-'))
  const engine = await superviseEngine({ dataDir: dir, database: 'probe', httpPort: 0, tcpPort: 0, logger: createLogger('warn', 'machine-probe') })
  const run = (sql: string) => post(engine.url, sql, engine.credentials.svc)
  try {
    await run('CREATE DATABASE IF NOT EXISTS probe')
    await run('CREATE TABLE probe.raw (k UInt64, a String, v UInt256, t DateTime) ENGINE = MergeTree ORDER BY (a, k)')
    const targets = [
      ['sums', 'a String, n UInt64, v UInt256', 'SummingMergeTree', 'a', 'SELECT a, count() AS n, sum(v) AS v FROM probe.raw GROUP BY a'],
      ['by_k', 'k UInt64, a String, v UInt256', 'MergeTree', 'k', 'SELECT k, a, v FROM probe.raw'],
      ['last', 'a String, at AggregateFunction(argMax, UInt256, DateTime)', 'AggregatingMergeTree', 'a', 'SELECT a, argMaxState(v, t) AS at FROM probe.raw GROUP BY a'],
      ['uniq', 'a String, ks AggregateFunction(uniqExact, UInt64)', 'AggregatingMergeTree', 'a', 'SELECT a, uniqExactState(k) AS ks FROM probe.raw GROUP BY a'],
      ['hours', 'h DateTime, n UInt64', 'SummingMergeTree', 'h', 'SELECT toStartOfHour(t) AS h, count() AS n FROM probe.raw GROUP BY h'],
      ['spans', 'a String, lo SimpleAggregateFunction(min, DateTime), hi SimpleAggregateFunction(max, DateTime)', 'AggregatingMergeTree', 'a', 'SELECT a, min(t) AS lo, max(t) AS hi FROM probe.raw GROUP BY a'],
    ] as const
    for (const [name, columns, engineName, key, select] of targets) {
      await run(`CREATE TABLE probe.${name} (${columns}) ENGINE = ${engineName} ORDER BY ${key}`)
      await run(`CREATE MATERIALIZED VIEW probe.${name}_mv TO probe.${name} AS ${select}`)
    }
    let next = 0
    const insert = () => {
      const rows = Array.from({ length: 30 }, () => {
        const k = next++
        return JSON.stringify({ k, a: `0x${(k % 97).toString(16).padStart(40, '0')}`, v: String(BigInt(k) * 10n ** 18n), t: 1_700_000_000 + k })
      })
      return run(`INSERT INTO probe.raw FORMAT JSONEachRow\n${rows.join('\n')}`)
    }
    const keys = Array.from({ length: 12 }, (_, i) => `'0x${(i * 7).toString(16).padStart(40, '0')}'`).join(', ')
    const read = () => run(`SELECT a, sum(n), sum(v) FROM probe.sums WHERE a IN (${keys}) GROUP BY a FORMAT JSONEachRow`)
    return { insertMs: await medianMs(insert), readMs: await medianMs(read) }
  } finally {
    await engine.stop()
  }
}

/** The median of TIMES timed calls after WARM untimed ones. */
async function medianMs(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARM; i++) await call()
  const ms: number[] = []
  for (let i = 0; i < TIMES; i++) {
    const t0 = performance.now()
    await call()
    ms.push(performance.now() - t0)
  }
  ms.sort((a, b) => a - b)
  return Math.round(ms[Math.floor(TIMES / 2)]! * 10) / 10
}

/** The probe taken before and after a run, as one line: far apart, the machine changed under the run. */
export function speedText(before: MachineSpeed, after: MachineSpeed): string {
  const spread = Math.max(before.insertMs, after.insertMs) / Math.min(before.insertMs, after.insertMs)
  return `the machine's probe (a 30-row insert through six views; a keyed read of 12 keys), median ms: before the run ${before.insertMs}; ${before.readMs}, after it ${after.insertMs}; ${after.readMs}${spread > 1.3 ? ` (the inserts ${spread.toFixed(1)}x apart: the machine changed during the run)` : ''}`
}
