import type { z } from 'zod'
import { dlq, ok, type Step } from './step-result.ts'

/**
 * The first step of every consumer: the record's JSON checked against its zod schema at the
 * boundary. Not JSON or not matching: the record is dead-lettered with the first issue.
 */
export function createParseStep<S extends z.ZodType>(schema: S): Step<string, z.output<S>> {
  return {
    name: 'parse',
    run(raw) {
      let json: unknown
      try {
        json = JSON.parse(raw)
      } catch {
        return dlq('invalid_json')
      }
      const r = schema.safeParse(json)
      if (!r.success) {
        const issue = r.error.issues[0]
        return dlq(`invalid_record: ${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message}`)
      }
      return ok(r.data as z.output<S>)
    },
  }
}
