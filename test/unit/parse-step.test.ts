import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import type { BusMessage } from '../../core/bus/types.ts'
import { createParseStep } from '../../pipelines/consumer/parse-step.ts'

const Rec = z.object({ n: z.number().int(), tags: z.array(z.string()).default([]) })
const msg = (value: string): BusMessage => ({ topic: 't', partition: 0, offset: '0', timestamp: 0, key: 'k', value })
const run = async (value: string) => createParseStep(Rec).run(value, msg(value))

describe('createParseStep()', () => {
  it('createParseStep() answers the parsed record, with the schema\'s defaults applied', async () => {
    expect(await run('{"n":1}')).toEqual({ kind: 'ok', value: { n: 1, tags: [] } })
  })

  it('createParseStep() dead-letters a record that is not JSON, and one that does not match, naming the field', async () => {
    expect(await run('not json')).toEqual({ kind: 'dlq', reason: 'invalid_json' })
    const r = await run('{"n":"two"}')
    expect(r.kind).toBe('dlq')
    expect(r.kind === 'dlq' && r.reason).toMatch(/^invalid_record: n: /)
  })
})
