import { benchDecode } from './decode.bench.ts'

// `node --import tsx bench/decode.ts`: the decode benchmark alone.
const r = await benchDecode()
console.log(r.name)
console.log(`  ours:     ${r.ours.value.toLocaleString('en-US')} ${r.ours.unit}`)
console.log(`  baseline: ${r.base.value.toLocaleString('en-US')} ${r.base.unit}  (${r.baseline})`)
console.log(`  ratio:    ${r.ratio.toFixed(1)}x`)
if (r.notes) console.log(`  notes:    ${r.notes}`)
