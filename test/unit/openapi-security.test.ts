import { describe, expect, it } from 'vitest'
import { catalog } from '../../api/catalog/index.ts'
import { TAGS } from '../../core/endpoint/tags.ts'
import { buildOpenApi } from '../../api/openapi.ts'

type Op = { security?: Array<Record<string, string[]>>; tags: string[]; 'x-access': string }
const doc = buildOpenApi(catalog) as {
  paths: Record<string, Record<string, Op>>
  tags: Array<{ name: string; description: string }>
  components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }> }
}
const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })))

describe('/openapi.json says what each call must present', () => {
  it('declares the key header, the bearer form and the x402 payment header as schemes', () => {
    expect(doc.components.securitySchemes).toEqual({
      svcKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-svc-key' }),
      bearerKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      x402Payment: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE' }),
    })
  })

  it('gives every operation the security its access kind takes, as the gate admits it', () => {
    const key = [{ svcKey: [] }, { bearerKey: [] }]
    const expected: Record<string, unknown[]> = {
      free: [],
      paid: [...key, { x402Payment: [] }],
      mixed: [{}, ...key, { x402Payment: [] }],
      key,
      admin: [{ bearerKey: [] }],
    }
    expect(ops.length).toBe(catalog.length)
    for (const { where, op } of ops) {
      // /feed/new is priced per query (tier=free costs nothing), so it also admits an anonymous call.
      const want = where === 'GET /feed/new' ? [{}, ...expected.paid!] : expected[op['x-access']]
      expect(op.security, where).toEqual(want)
    }
  })

  it('declares every tag an operation uses at the root, with a description', () => {
    const used = new Set(ops.flatMap(({ op }) => op.tags))
    expect(doc.tags.map((t) => t.name).sort()).toEqual([...used].sort())
    for (const t of doc.tags) expect(t.description, t.name).toBe(TAGS[t.name as keyof typeof TAGS])
  })
})
