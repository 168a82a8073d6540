import { describe, expect, it } from 'vitest'
import { catalog } from '../../api/catalog/index.ts'
import { buildOpenApi } from '../../api/openapi.ts'

type Json = Record<string, unknown>
const CLOCK = /\[(chain|capture|wall) clock\]/

/** Every field of the feature row documents which of the three clocks it lives on (issue 13). */
describe('/agent/features in OpenAPI', () => {
  it('every field of identity, current_state, observed and coverage names its clock; point_in_time is the constant false', () => {
    const doc = buildOpenApi(catalog) as { paths: Record<string, Record<string, Json>> }
    const schema = (doc.paths['/agent/features']!.get!.responses as Json)['200'] as { content: Record<string, { schema: Json }> }
    const root = schema.content['application/json']!.schema as { properties: Record<string, Json> }
    expect(root.properties.point_in_time).toMatchObject({ const: false })
    const data = root.properties.data as { properties: Record<string, Json> }
    const missing: string[] = []
    /** Fields directly in a block and in its nested objects (not inside arrays of plain rows). */
    function visit(s: Json, at: string, depth: number): void {
      const props = (s.properties ?? (s.anyOf as Json[] | undefined)?.find((x) => x.properties)?.properties) as Record<string, Json> | undefined
      if (!props) return
      for (const [name, sub] of Object.entries(props)) {
        const desc = (sub.description ?? (sub.anyOf as Json[] | undefined)?.find((x) => x.description)?.description) as string | undefined
        if (name !== 'k_threshold' && !(desc && CLOCK.test(desc))) missing.push(`${at}.${name}`)
        if (depth < 2) visit(sub, `${at}.${name}`, depth + 1)
      }
    }
    for (const block of ['identity', 'current_state', 'observed', 'coverage']) {
      const b = data.properties[block]!
      expect(b.description, block).toMatch(CLOCK)
      visit(b, block, 0)
    }
    expect(missing).toEqual([])
  })
})
