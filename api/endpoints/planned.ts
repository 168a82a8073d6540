import { z } from 'zod'
import { defineEndpoint, type AnyEndpoint } from '../catalog/types.ts'
import { Address, GenericData, Handle, IsoCursor, Limit } from '../catalog/schemas.ts'

/**
 * Endpoints of the contract that are declared (path, parameters, price, tool) but not served
 * yet: they answer 501 not_implemented and are listed in OpenAPI and the x402 catalog with
 * their prices. Each moves to a file of its own when its handler lands.
 */
const token = z.object({ token: Address })
const address = z.object({ address: Address })
const handle = z.object({ handle: Handle })
const bool = z.enum(['true', 'false']).transform((v) => v === 'true')

export const plannedEndpoints: AnyEndpoint[] = [
  defineEndpoint()({ method: 'GET', path: '/pulse/{token}', summary: 'Token pulse', description: 'Live activity pulse of a token with a signal.', tags: ['token'], params: token, response: GenericData, access: { kind: 'paid', price: '0.04' }, tool: { name: 'svc_pulse' } }),
  defineEndpoint()({ method: 'GET', path: '/structure/{token}', summary: 'Holder-structure diff', description: 'Labeled holder-structure diff over about 24h with a structure verdict (rotation, distribution, accumulation, insufficient_data).', tags: ['structure'], params: token, response: GenericData, access: { kind: 'paid', price: '0.03' }, tool: { name: 'svc_structure' } }),
  defineEndpoint()({ method: 'GET', path: '/structure/{token}/smart-holders', summary: 'Smart holders', description: 'Smart holders of a token. Free for watched tokens with a subscription key.', tags: ['structure'], params: token, response: GenericData, access: { kind: 'paid', price: '0.05', note: 'free for watched tokens with a subscription key' } }),
  defineEndpoint()({ method: 'GET', path: '/entity/{address}', summary: 'Wallet entity', description: 'Appearances of one wallet entity across the holder-snapshot archive, with identity, insider and deployer records.', tags: ['structure'], params: address, response: GenericData, access: { kind: 'paid', price: '0.05' } }),
  defineEndpoint()({ method: 'GET', path: '/agent/features', summary: 'Agent feature row', description: 'Per-token feature row (identity, current_state, observed, coverage); point_in_time is always false.', tags: ['token'], query: z.object({ token: Address }), response: GenericData, access: { kind: 'paid', price: '0.03' }, tool: { name: 'svc_agent_features' } }),
  defineEndpoint()({ method: 'GET', path: '/arc/report/{token}', summary: 'Chain 5042 token report', description: 'Second-chain token report; measured_through_block states the edge.', tags: ['arc'], params: token, response: GenericData, access: { kind: 'paid', price: '0.03' }, tool: { name: 'svc_arc_report' } }),
  defineEndpoint()({ method: 'GET', path: '/arc/deployer/{address}', summary: 'Chain 5042 deployer', description: 'Second-chain deployer record; found:false for unknown wallets.', tags: ['arc'], params: address, response: GenericData, access: { kind: 'paid', price: '0.03' } }),
  defineEndpoint()({ method: 'GET', path: '/arc/pads', summary: 'Chain 5042 launchpads', description: 'Launchpads with totals.', tags: ['arc'], query: z.object({ limit: Limit() }), response: GenericData, access: { kind: 'paid', price: '0.01' } }),
  defineEndpoint()({
    method: 'GET', path: '/arc/feed/new', summary: 'Chain 5042 launch feed', description: 'Second-chain launches with a before_block cursor taken from next_before_block.', tags: ['arc'],
    query: z.object({ limit: Limit(), via: Address.optional(), min_transfers: z.coerce.number().int().min(0).optional(), before_block: z.coerce.number().int().min(0).optional() }),
    response: GenericData, access: { kind: 'paid', price: '0.02' },
  }),
  defineEndpoint()({ method: 'POST', path: '/structure/{token}', summary: 'Queue a structure scan', description: 'Queues a holder-structure scan; results later by GET. Job states: queued, running, done, failed.', tags: ['structure'], params: token, response: GenericData, access: { kind: 'free' } }),
  defineEndpoint()({ method: 'GET', path: '/forensics/{token}', summary: 'Forensics results', description: 'Cached forensics scan results.', tags: ['structure'], params: token, response: GenericData, access: { kind: 'free' } }),
  defineEndpoint()({ method: 'POST', path: '/forensics/{token}', summary: 'Queue a forensics scan', description: 'Queues a forensics scan. Job states: queued, running, done, failed.', tags: ['structure'], params: token, response: GenericData, access: { kind: 'free' } }),
  defineEndpoint()({ method: 'GET', path: '/basket', summary: 'Paper basket', description: 'Live forward paper-basket track record: launches whose verdict 15 minutes after launch was low_risk, marked at 1h, 24h and 7d.', tags: ['proof'], response: GenericData, access: { kind: 'free' }, tool: { name: 'svc_basket' } }),
  defineEndpoint()({ method: 'GET', path: '/proof.json', summary: 'Calibration proof', description: 'Per verdict signal: token count, share that became real, share dead within 7 days, median 24h return.', tags: ['proof'], response: GenericData, access: { kind: 'free' } }),
  defineEndpoint()({ method: 'GET', path: '/structure/{token}/history', summary: 'Holder-snapshot history', description: 'Longitudinal holder-snapshot history (daily for watched tokens).', tags: ['structure'], params: token, response: GenericData, access: { kind: 'key', feature: 'history' } }),
]
