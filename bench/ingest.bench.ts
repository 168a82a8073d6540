import { followed4663 } from '../bin/follow.ts'
import { createRuntime } from '../bin/runtime.ts'
import { loadConfig } from '../core/config.ts'
import { createChainProcessor } from '../pipelines/process/chain-processor.ts'
import { chainRows, memoryRowsState } from '../pipelines/process/chain-rows.ts'
import type { ChainBlock } from '../pipelines/records/chain-block.ts'
import { createChainSimulator, DEFAULT_START_TIME } from '../pipelines/sim/chain-sim.ts'
import { chainTopic } from '../core/bus/topics.ts'
import { tempDir } from '../test/setup/temp.ts'
import type { BenchResult } from './result.ts'

/**
 * End-to-end ingest in the embedded mode: simulated blocks published on the in-process bus,
 * consumed by the chain processor (parse, decode, attribute, journal, insert with dedup
 * tokens, materialized views) — against the baseline of a bare insert of the very same rows
 * into the same tables without views or deduplication, in the same process and engine.
 */
export async function benchIngest(blocks = Number(process.env.BENCH_INGEST_BLOCKS ?? 4000)): Promise<BenchResult> {
  const dir = tempDir('svc-bench-')
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'warn', PIPELINE_BATCH_BLOCKS: '500' })
  const rt = await createRuntime(config, 'bench')
  try {
    const sim = createChainSimulator({ chainId: 4663, seed: 7, startTime: DEFAULT_START_TIME, blockTimeSec: 2 })
    const generated: ChainBlock[] = []
    for (let i = 0; i < blocks; i++) generated.push(sim.nextBlock())
    const records = generated.map((b) => ({ key: '4663', value: JSON.stringify(b) }))

    // The rows the pipeline will write, built once up front for the bare baseline.
    const rowsState = memoryRowsState(followed4663(config))
    const batches: Awaited<ReturnType<typeof chainRows>>['tables'][] = []
    for (let i = 0; i < generated.length; i += 500) batches.push((await chainRows(4663, generated.slice(i, i + 500), rowsState)).tables)
    const totalRows = batches.flat().reduce((s, [, rows]) => s + rows.length, 0)

    // Baseline: the same rows into bare copies of the raw tables (no views, no dedup, no decode).
    await rt.ch.command({ query: 'CREATE DATABASE IF NOT EXISTS bare' })
    for (const [table] of batches[0]!) {
      await rt.ch.command({ query: `CREATE TABLE bare.${table} AS default.${table} ENGINE = MergeTree ORDER BY tuple()` })
    }
    const t0 = performance.now()
    for (const tables of batches) {
      for (const [table, rows] of tables) if (rows.length) await rt.ch.insert({ table: `bare.${table}`, values: rows, format: 'JSONEachRow' })
    }
    const bareSeconds = (performance.now() - t0) / 1000

    // Ours: through the bus and the processor, until the watermark reaches the last block.
    const processor = createChainProcessor({
      ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663,
      follow: followed4663(config), maxBatchBlocks: 500,
    })
    await processor.start()
    const t1 = performance.now()
    for (let i = 0; i < records.length; i += 500) await rt.bus.publish(chainTopic(4663), records.slice(i, i + 500))
    while (processor.watermark() < generated[generated.length - 1]!.number) await new Promise((r) => setTimeout(r, 5))
    const oursSeconds = (performance.now() - t1) / 1000
    await processor.stop()

    const ours = totalRows / oursSeconds
    const base = totalRows / bareSeconds
    return {
      name: 'ingest: end-to-end rows/s (bus → decode → insert → MVs, chDB)',
      baseline: 'bare insert of the same rows into the same tables without views or dedup',
      ours: { value: Math.round(ours), unit: 'rows/s' },
      base: { value: Math.round(base), unit: 'rows/s' },
      ratio: ours / base,
      notes: `${blocks} blocks, ${totalRows} rows, batches of 500 blocks`,
    }
  } finally {
    await rt.close()
    dir.cleanup()
  }
}
