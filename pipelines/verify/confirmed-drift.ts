import type { Checked } from './run-verify.ts'

/**
 * What a second look at a view confirms of the first look's drift: the keys that drifted in both
 * looks with the same kept and fresh values. A refresh in flight is not drift: a key whose batch
 * was inserted but not yet refreshed at either look (new keys keep arriving while a chain
 * catches up), or whose kept value moved between the looks, was being advanced by the pipeline.
 * A key that stayed the same wrong value while its raw rows stood still is drift.
 */
export function confirmedDrift(first: Checked, second: Checked, shown: number): Checked {
  const seen = new Map(first.drifts.map((d) => [d.key, d]))
  const drifts = second.drifts.filter((d) => {
    const before = seen.get(d.key)
    return before !== undefined && before.kept === d.kept && before.fresh === d.fresh
  })
  return {
    drifted: drifts.length,
    drifts,
    report: { ...second.report, drifted: drifts.length, first: drifts.slice(0, shown), seconds: first.report.seconds + second.report.seconds },
  }
}
