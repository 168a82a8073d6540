import { benchAccess } from './access.bench.ts'
import { benchArc } from './arc.bench.ts'
import { benchApi } from './api.bench.ts'
import { benchDecode } from './decode.bench.ts'
import { benchDoor } from './door.bench.ts'
import { benchEntityLinks } from './entity-links.bench.ts'
import { benchIngest } from './ingest.bench.ts'
import { benchLoad } from './load.bench.ts'
import { benchLongPoll } from './long-poll.bench.ts'
import { benchLoadMix } from './load-mix.bench.ts'
import { benchOutcomes } from './outcomes.bench.ts'
import { benchPipeline } from './pipeline.bench.ts'
import { benchCallers } from './callers.bench.ts'
import { benchComposite } from './composite.bench.ts'
import { benchReceipts } from './receipts.bench.ts'
import { benchScale } from './scale.bench.ts'
import { benchStructure } from './structure.bench.ts'
import { benchMomentum, benchSocialIngest } from './social.bench.ts'
import { benchSolana } from './solana.bench.ts'
import { SOLANA_UNIVERSE_SIZE } from '../pipelines/sim/solana-sim.ts'
import type { BenchResult } from './result.ts'

/** Run every benchmark in one process and print each ratio against its named baseline. */
const benches: Array<[string, () => Promise<BenchResult | BenchResult[]>]> = [
  ['decode', benchDecode],
  ['ingest', benchIngest],
  ['api', benchApi],
  ['social', benchSocialIngest],
  ['momentum', benchMomentum],
  ['access', benchAccess],
  ['composite', benchComposite],
  ['solana', () => benchSolana()],
]
/** Run only when named (`npm run bench -- scale`, `-- structure`, ...): they build large synthetic data or load the service for minutes. */
const onRequest: Array<[string, () => Promise<BenchResult | BenchResult[]>]> = [
  ['scale', benchScale],
  ['callers', benchCallers],
  ['structure', benchStructure],
  ['entity-links', benchEntityLinks],
  ['load', benchLoad],
  ['long-poll', benchLongPoll],
  ['pipeline', benchPipeline],
  ['load-inprocess', benchLoadMix],
  ['door', benchDoor],
  ['arc', benchArc],
  ['receipts', benchReceipts],
  ['outcomes', benchOutcomes],
  ['solana-full', () => benchSolana(SOLANA_UNIVERSE_SIZE)],
]

const only = process.argv.slice(2)
for (const [name, run] of [...benches, ...onRequest]) {
  if (only.length ? !only.includes(name) : onRequest.some(([n]) => n === name)) continue
  for (const r of [await run()].flat()) print(r)
}

function print(r: BenchResult): void {
  console.log(`\n${r.name}`)
  console.log(`  ours:     ${r.ours.value.toLocaleString('en-US')} ${r.ours.unit}`)
  console.log(`  baseline: ${r.base.value.toLocaleString('en-US')} ${r.base.unit}  (${r.baseline})`)
  console.log(`  ratio:    ${r.ratio.toFixed(2)}x`)
  if (r.notes) console.log(`  notes:    ${r.notes}`)
}
