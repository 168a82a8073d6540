import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { formatReport, runVerify } from '../../pipelines/verify/run-verify.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * A processor behind its bus (here: 900 blocks published at once, batches of 150) inserts batch
 * after batch and serves them together once it has caught up (deferred-refresh.ts): fewer
 * refreshes than batches, and every kept view equal to a fresh computation from the raw rows.
 */
let env: Embedded
const BATCH = 150
const HEAD = 900

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: String(BATCH) })
  await env.ingestThrough(HEAD)
}, 180_000)
afterAll(async () => env?.close())

describe('refreshes deferred while catching up', () => {
  it('serves the catch-up in fewer refreshes than batches, through the last block', async () => {
    const [r] = await queryRows<{ refreshes: string; through: string }>(
      env.rt.ch,
      `SELECT count() AS refreshes, max(watermark) AS through FROM serving_changes WHERE chain_id = 4663 AND kind = 'batch'`,
    )
    expect(Number(r!.through)).toBe(HEAD)
    expect(env.processor.watermark()).toBe(HEAD)
    expect(Number(r!.refreshes)).toBeGreaterThan(0)
    expect(Number(r!.refreshes)).toBeLessThan(HEAD / BATCH)
  })

  it('leaves every kept view equal to a fresh computation', async () => {
    const report = await runVerify(env.rt.ch)
    expect(report.views.filter((v) => v.drifted > 0), formatReport(report)).toEqual([])
    const checked = (view: string) => report.views.filter((v) => v.view === view).reduce((s, v) => s + v.checked, 0)
    for (const view of ['token_state', 'deployer_state', 'fifo_state', 'fifo_sells', 'chain_totals']) expect(checked(view), view).toBeGreaterThan(0)
  })
})
