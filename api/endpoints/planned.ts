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
  defineEndpoint()({ method: 'GET', path: '/solana/wallet-receipt/{address}', summary: 'Wallet receipt (Solana)', description: 'FIFO realized PnL in USD, win rate and open cost for a wallet of the tracked Solana venue.', tags: ['wallet'], params: z.object({ address: SolanaAddress }), response: GenericData, access: { kind: 'paid', price: '0.03' } }),
]
