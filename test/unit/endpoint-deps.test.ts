import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { ServedEndpoint, Uses } from '../../core/endpoint/deps.ts'

/**
 * An endpoint names the dependencies its handler reads; `npx tsc --noEmit` holds it to them
 * (the @ts-expect-error lines below fail the type check if they ever compile).
 */
const tokenOnly = defineEndpoint<Uses<'tokens'>>()({
  method: 'GET', path: '/test/deps', summary: 't', description: 't', tags: [], response: z.object({ chain: z.number() }), access: { kind: 'free' },
  handler: async ({ deps }) => {
    // @ts-expect-error: the endpoint did not declare the ClickHouse client
    void deps.ch
    return { chain: deps.tokens.chainId }
  },
})

describe('defineEndpoint()', () => {
  it('gives the handler only the dependencies the endpoint declared, and the routes can serve it', async () => {
    // A process's full dependencies cover any declared subset: the endpoint is a ServedEndpoint.
    const served: ServedEndpoint = tokenOnly
    const deps = { tokens: { chainId: 4663 } } as unknown as Parameters<NonNullable<ServedEndpoint['handler']>>[0]['deps']
    const grant = { via: 'free' as const, price: null }
    expect(await served.handler!({ params: {}, query: {}, body: undefined, deps, request: { ip: '127.0.0.1', headers: {} }, grant })).toEqual({ chain: 4663 })
  })
})
