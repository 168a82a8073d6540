import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../core/logger.ts'
import { createMetrics } from '../../core/metrics.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { readSocialCheckpoint, socialCheckpointPath, writeSocialCheckpoint } from '../../pipelines/sim/social-checkpoint.ts'
import { createSimSource } from '../../pipelines/sources/sim-source.ts'
import { tempDir } from '../setup/temp.ts'

describe('createSimSource() when its social checkpoint cannot be written', () => {
  it('createSimSource() keeps a checkpoint the file system refused, reports it on /health, and stores it once the write goes through', { timeout: 60_000 }, async () => {
    const dir = tempDir()
    try {
      const path = socialCheckpointPath(dir.path, 4663)
      // A file where the checkpoint's directory must go: every write fails with a real system error.
      writeFileSync(join(dir.path, 'sim'), 'in the way')
      const world = { chainId: 4663, seed: 7, genesis: 1_000_000, blockSeconds: 2 }
      let refused = 0
      const metrics = createMetrics({ processMetrics: false })
      const bus = createMemoryBus()
      const sim = createSimSource({
        bus, logger: createLogger('silent', 'test'), metrics, chainId: 4663, seed: 7, blockSeconds: 2, start: { fromBlock: 1, genesis: 1_000_000 }, untilBlock: 300, progressEveryMs: 0,
        checkpoints: {
          everyMs: 0,
          save(cp) {
            try {
              writeSocialCheckpoint(path, { version: 1, ...world, ...cp })
            } catch (err) {
              refused++
              throw err
            }
          },
        },
      })
      await sim.run()
      expect(refused).toBeGreaterThan(0)
      expect(readSocialCheckpoint(path, world)).toEqual({ reason: 'no social checkpoint' })
      const [fault] = metrics.infraFaults.active()
      expect(fault).toMatchObject({ component: 'sim-4663', at: 'checkpoint', error_class: 'os' })
      expect(await metrics.infraRetries.get({ consumer: 'sim-4663', kind: 'os' })).toBe(refused)

      // The way cleared: the kept checkpoint is stored on the next try, none skipped.
      rmSync(join(dir.path, 'sim'))
      await sim.stop()
      const stored = readSocialCheckpoint(path, world)
      expect('checkpoint' in stored && stored.checkpoint.block).toBeGreaterThanOrEqual(300)
      expect(metrics.infraFaults.active()).toEqual([])
      await bus.close()
    } finally {
      dir.cleanup()
    }
  })
})
