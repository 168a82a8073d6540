import { describe, expect, it } from 'vitest'
import { AUDITED_VIEWS } from '../../core/records/verify-report.ts'
import { VIEW_CHECKS } from '../../pipelines/verify/view-checks.ts'

/** The names the API and CLI accept (core) and the checks the audit runs (pipelines) are the same set. */
describe('audited views', () => {
  it('have exactly one check each, in the order the names are listed', () => {
    expect(VIEW_CHECKS.map((c) => c.view)).toEqual([...AUDITED_VIEWS])
  })
})
