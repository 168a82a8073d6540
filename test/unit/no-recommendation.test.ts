import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { catalog } from '../../api/catalog/index.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import { buildOpenApi } from '../../api/openapi.ts'

/**
 * The service publishes measurements and inputs, never advice (issue 13): no response of the
 * feature row, the wallet receipts, the reports, the verdict, the pulse, the basket or the proof
 * carries a recommendation, a target or an expected return. The walk reads the OpenAPI document
 * /openapi.json serves (buildOpenApi of the catalog): every property name and every description
 * under each response schema, nested objects, arrays, unions and $defs included.
 */
const WALKED = [
  '/agent/features', '/wallet-receipt/{address}', '/solana/wallet-receipt/{address}', '/report/{token}', '/arc/report/{token}',
  '/verdict/{token}', '/pulse/{token}', '/basket', '/proof.json',
]

const BAD_NAME = /recommend|target|expected_?return|projected|forecast|upside|advice|suggest|should_(buy|sell|hold)|^(action|call_to_action|buy|sell|hold)$|(buy|sell|entry|exit)_(signal|price_target|zone)|take_profit|stop_loss/i
const BAD_TEXT = /\b(we recommend|recommended|recommendation|price target|target price|expected return|projected return|you should|consider (buying|selling)|buy signal|sell signal|take profit|stop loss)\b/i

type Json = Record<string, unknown>

/** Every (path in the schema, property name or description) under a schema. */
function walk(schema: unknown, at: string, out: Array<{ at: string; name?: string; text?: string }>): void {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => walk(s, `${at}[${i}]`, out))
    return
  }
  if (!schema || typeof schema !== 'object') return
  const s = schema as Json
  if (typeof s.description === 'string') out.push({ at, text: s.description })
  if (typeof s.title === 'string') out.push({ at, text: s.title })
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' && v && typeof v === 'object') {
      for (const [name, sub] of Object.entries(v as Json)) {
        out.push({ at: `${at}.${name}`, name })
        walk(sub, `${at}.${name}`, out)
      }
    } else if (k === 'required' && Array.isArray(v)) {
      for (const name of v) if (typeof name === 'string') out.push({ at: `${at}(required)`, name })
    } else if (v && typeof v === 'object') {
      walk(v, `${at}/${k}`, out)
    }
  }
}

function offenders(doc: Json, paths: string[]): string[] {
  const found: string[] = []
  for (const p of paths) {
    const ops = (doc.paths as Record<string, Record<string, Json>>)[p]
    expect(ops, `${p} is in the OpenAPI document`).toBeDefined()
    for (const [method, op] of Object.entries(ops!)) {
      const responses = op.responses as Record<string, { content?: Record<string, { schema: unknown }> }>
      const items: Array<{ at: string; name?: string; text?: string }> = []
      for (const [status, r] of Object.entries(responses)) for (const c of Object.values(r.content ?? {})) walk(c.schema, `${method.toUpperCase()} ${p} ${status}`, items)
      expect(items.length, `${p} has fields to walk`).toBeGreaterThan(0)
      for (const i of items) {
        if (i.name && BAD_NAME.test(i.name)) found.push(`${i.at}: field name "${i.name}"`)
        if (i.text && BAD_TEXT.test(i.text)) found.push(`${i.at}: description "${i.text}"`)
      }
    }
  }
  return found
}

describe('no recommendation, target or expected return in any response', () => {
  it('the walked responses of /openapi.json carry none', () => {
    expect(offenders(buildOpenApi(catalog), WALKED)).toEqual([])
  })

  it('the walk finds one when it is there (a field name, a nested one, a description)', () => {
    const planted = defineEndpoint()({
      method: 'GET', path: '/planted', summary: 's', description: 'd', tags: [], access: { kind: 'free' },
      response: z.object({
        data: z.object({
          expected_return: z.number(),
          rows: z.array(z.object({ price_target: z.string().nullable() })),
          verdict: z.string().meta({ description: 'We recommend buying below this level' }),
        }),
      }),
    })
    const found = offenders(buildOpenApi([planted]), ['/planted'])
    expect(found.some((f) => f.includes('"expected_return"'))).toBe(true)
    expect(found.some((f) => f.includes('"price_target"'))).toBe(true)
    expect(found.some((f) => f.includes('We recommend'))).toBe(true)
  })
})
