import { randomBytes } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { createClickHouse, type ClickHouseClient } from '../../core/clickhouse.ts'
import { requireKafkaBrokers } from '../setup/services.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { EXACT_BLOCKS, expectExactCounts } from '../setup/exact-counts.ts'

const BLOCKS = EXACT_BLOCKS

describe('chain processor killed in the middle of a batch (Kafka + chDB)', () => {
  const data = tempDir()
  const simData = tempDir()
  let ch: ClickHouseClient | undefined
  afterAll(async () => {
    await ch?.close()
    data.cleanup()
    simData.cleanup()
  })

  it('a processor killed mid-batch and restarted leaves every count exactly equal to an independent count over the raw rows', { timeout: 300_000 }, async () => {
    const env = {
      KAFKA_BROKERS: requireKafkaBrokers(),
      BUS_NAMESPACE: `t${randomBytes(4).toString('hex')}`,
      PIPELINE_BATCH_BLOCKS: '100',
      LOG_LEVEL: 'info',
    }
    const sim = await runSvc(['sim', '--until', String(BLOCKS)], { ...env, DATA_DIR: simData.path })
    expect(sim.code, sim.stderr).toBe(0)

    const pipeline = ['pipeline', 'chain-4663', '--exit-at-block', String(BLOCKS)]
    // Killed right after the 2nd batch's swaps insert: its reserves, liquidity events and blocks are not in yet.
    const crash1 = await runSvc(pipeline, { ...env, DATA_DIR: data.path, SVC_FAULT: 'crash-after-insert:swaps:2' })
    expect(crash1.signal).toBe('SIGKILL')
    // Restarted with another batch size, so that batches formed afresh would cover other block
    // ranges than the crashed one: only re-forming the journaled batch exactly keeps it exact.
    // Killed again in the re-formed batch, after a table that the first crash had not reached.
    const crash2 = await runSvc(pipeline, { ...env, PIPELINE_BATCH_BLOCKS: '70', DATA_DIR: data.path, SVC_FAULT: 'crash-after-insert:pool_reserves:1' })
    expect(crash2.signal).toBe('SIGKILL')
    expect(crash2.stdout.includes('re-inserting the journaled batch'), `crash2:\n${crash2.stdout.slice(-2500)}`).toBe(true)
    const finish = await runSvc(pipeline, { ...env, PIPELINE_BATCH_BLOCKS: '70', DATA_DIR: data.path })
    expect(finish.code, finish.stderr).toBe(0)
    expect(finish.stdout.includes('re-inserting the journaled batch'), `finish:\n${finish.stdout.slice(0, 2500)}`).toBe(true)

    ch = await createClickHouse({ DATA_DIR: data.path } as never)
    await expectExactCounts(ch)
  })
})
