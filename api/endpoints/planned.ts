import { z } from 'zod'
import { defineEndpoint, type AnyEndpoint } from '../catalog/types.ts'
import { Address, GenericData, Handle, IsoCursor, Limit, SolanaAddress } from '../catalog/schemas.ts'

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
  defineEndpoint()({ method: 'GET', path: '/agent/features', summary: 'Agent feature row', description: 'Per-token feature row (identity, current_state, observed, coverage); point_in_time is always false.', tags: ['token'], query: z.object({ token: Address }), response: GenericData, access: { kind: 'paid', price: '0.03' }, tool: { name: 'svc_agent_features' } }),
  defineEndpoint()({ method: 'GET', path: '/solana/wallet-receipt/{address}', summary: 'Wallet receipt (Solana)', description: 'FIFO realized PnL in USD, win rate and open cost for a wallet of the tracked Solana venue.', tags: ['wallet'], params: z.object({ address: SolanaAddress }), response: GenericData, access: { kind: 'paid', price: '0.03' } }),
  defineEndpoint()({ method: 'GET', path: '/basket', summary: 'Paper basket', description: 'Live forward paper-basket track record: launches whose verdict 15 minutes after launch was low_risk, marked at 1h, 24h and 7d.', tags: ['proof'], response: GenericData, access: { kind: 'free' }, tool: { name: 'svc_basket' } }),
  defineEndpoint()({ method: 'GET', path: '/proof.json', summary: 'Calibration proof', description: 'Per verdict signal: token count, share that became real, share dead within 7 days, median 24h return.', tags: ['proof'], response: GenericData, access: { kind: 'free' } }),
]
