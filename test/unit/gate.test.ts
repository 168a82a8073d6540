import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAccessGate, type PaymentMethod } from '../../api/access/gate.ts'
import type { KeyRegistry } from '../../api/access/keys.ts'
import { defineEndpoint, type AnyEndpoint } from '../../core/endpoint/types.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'

const report = defineEndpoint()({
  method: 'GET', path: '/report/{token}', summary: 'r', description: 'r', tags: [], response: z.object({}),
  access: { kind: 'mixed', price: '0.05', freePerDay: 3 },
}) as unknown as AnyEndpoint
const noKeys = { verify: async () => null } as unknown as KeyRegistry
const request = (ip: string, headers: Record<string, string> = {}) => ({ ip, headers })

describe('createAccessGate() on a mixed endpoint', () => {
  it('admits the free daily quota per IP, then answers 402; another IP has its own quota', async () => {
    const gate = createAccessGate({ adminToken: undefined, store: createMemoryStore(), keys: noKeys })
    for (let i = 0; i < 3; i++) expect((await gate.admit(report, {}, request('1.1.1.1'))).via).toBe('free_quota')
    await expect(gate.admit(report, {}, request('1.1.1.1'))).rejects.toMatchObject({ code: 'payment_required' })
    await expect(gate.admit(report, { tier: 'free' }, request('1.1.1.1'))).rejects.toMatchObject({ code: 'payment_required' })
    expect((await gate.admit(report, { tier: 'free' }, request('2.2.2.2'))).via).toBe('free_quota')
  })

  it('a presented payment is used before the free quota, and no payment past the quota gets the 402 of the payment method', async () => {
    const seen: string[] = []
    const payments: PaymentMethod = {
      admit: async (_e, price, req) => (req.headers['payment-signature'] ? (seen.push(price), { via: 'payment', price }) : null),
      required: (_e, price) => new ApiError('payment_required', `pay ${price}`),
    }
    const gate = createAccessGate({ adminToken: undefined, store: createMemoryStore(), keys: noKeys, payments })
    expect(await gate.admit(report, {}, request('3.3.3.3', { 'payment-signature': 'x' }))).toEqual({ via: 'payment', price: '0.05' })
    expect(seen).toEqual(['0.05'])
    for (let i = 0; i < 3; i++) expect((await gate.admit(report, {}, request('3.3.3.3'))).via).toBe('free_quota')
    await expect(gate.admit(report, {}, request('3.3.3.3'))).rejects.toThrow('pay 0.05')
  })
})
