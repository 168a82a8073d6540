import { benchApi } from './api.bench.ts'
import { benchDecode } from './decode.bench.ts'
import { benchIngest } from './ingest.bench.ts'
import { benchMomentum, benchSocialIngest } from './social.bench.ts'
import type { BenchResult } from './result.ts'

/** Run every benchmark in one process and print each ratio against its named baseline. */
const benches: Array<[string, () => Promise<BenchResult>]> = [
  ['decode', benchDecode],
  ['ingest', benchIngest],
  ['api', benchApi],
  ['social', benchSocialIngest],
  ['momentum', benchMomentum],
]

const only = process.argv.slice(2)
for (const [name, run] of benches) {
  if (only.length && !only.includes(name)) continue
  const r = await run()
  console.log(`\n${r.name}`)
  console.log(`  ours:     ${r.ours.value.toLocaleString('en-US')} ${r.ours.unit}`)
  console.log(`  baseline: ${r.base.value.toLocaleString('en-US')} ${r.base.unit}  (${r.baseline})`)
  console.log(`  ratio:    ${r.ratio.toFixed(2)}x`)
  if (r.notes) console.log(`  notes:    ${r.notes}`)
}
