import { describe, expect, it } from 'vitest'
import { canMove, isActive, moveJob, SCAN_STATES, ScanTransitionError, type ScanJob } from '../../products/structure/scan-job.ts'
import { isStructureFlip } from '../../products/structure/structure-flip.ts'

const job = (state: ScanJob['state']): ScanJob => ({
  id: 'j', kind: 'structure', token: `0x${'ab'.repeat(20)}`, trigger: 'request', state, reason: null,
  requestedAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', measuredThroughBlock: null,
})
const at = new Date('2026-01-02T00:00:00.000Z')

describe('the scan-job state machine', () => {
  it('allows exactly queued → running | failed, running → running | done | failed, and nothing out of done or failed', () => {
    const allowed = SCAN_STATES.flatMap((from) => SCAN_STATES.filter((to) => canMove(from, to)).map((to) => `${from}>${to}`))
    expect(allowed.sort()).toEqual(['queued>failed', 'queued>running', 'running>done', 'running>failed', 'running>running'])
    expect(SCAN_STATES.filter(isActive)).toEqual(['queued', 'running'])
  })

  it('moveJob() records the time, the reason of a failure and the block of a result; refuses what the machine does not allow', () => {
    const running = moveJob(job('queued'), 'running', at)
    expect(running).toMatchObject({ state: 'running', updatedAt: at.toISOString(), reason: null })
    expect(moveJob(running, 'done', at, { measuredThroughBlock: 7 })).toMatchObject({ state: 'done', measuredThroughBlock: 7 })
    expect(moveJob(running, 'failed', at, { reason: 'unknown token' })).toMatchObject({ state: 'failed', reason: 'unknown token' })
    expect(() => moveJob(running, 'failed', at)).toThrow(/reason/)
    expect(() => moveJob(job('done'), 'running', at)).toThrow(ScanTransitionError)
    expect(() => moveJob(job('queued'), 'done', at)).toThrow(ScanTransitionError)
    expect(() => moveJob(job('failed'), 'queued', at)).toThrow(ScanTransitionError)
  })
})

describe('isStructureFlip()', () => {
  it('is a change between two measured verdicts only', () => {
    expect(isStructureFlip('accumulation', 'distribution')).toBe(true)
    expect(isStructureFlip('rotation', 'rotation')).toBe(false)
    expect(isStructureFlip(null, 'rotation')).toBe(false)
    expect(isStructureFlip('insufficient_data', 'rotation')).toBe(false)
    expect(isStructureFlip('rotation', 'insufficient_data')).toBe(false)
  })
})
