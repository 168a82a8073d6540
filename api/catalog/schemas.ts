import { z } from 'zod'
import { isoToMicros } from '../serving/cursor.ts'

/**
 * Parameter schemas shared by endpoints. Parsing normalizes: addresses are accepted in any
 * case and answered lowercase; handles with or without a leading @.
 */
export const ADDRESS_MESSAGE = 'expected a 0x address of 40 hex characters'

export const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, ADDRESS_MESSAGE)
  .transform((s) => s.toLowerCase())
  .meta({ description: 'EVM address: 0x followed by 40 hex characters, any case', example: '0x' + 'ab'.repeat(20) })

export const SolanaAddress = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address of 32 to 44 characters')
  .meta({ description: 'Solana wallet address (base58)' })

export const Handle = z
  .string()
  .regex(/^@?[A-Za-z0-9_]{1,30}$/, 'expected a handle of 1 to 30 letters, digits or _ with an optional @')
  .transform((s) => s.replace(/^@/, '').toLowerCase())
  .meta({ description: 'Social-network handle, with or without a leading @' })

/** A list limit: 1..max, default 50 (DESIGN §7: feed and stream limit default 50, max 200). */
export const Limit = (max = 200, def = 50) =>
  z.coerce.number().int(`expected an integer from 1 to ${max}`).min(1, `expected an integer from 1 to ${max}`).max(max, `expected an integer from 1 to ${max}`).default(def)

export const IsoCursor = z
  .string()
  .max(40, 'expected an ISO 8601 timestamp')
  .refine((s) => isoToMicros(s) !== null, 'expected an ISO 8601 timestamp such as 2026-01-01T00:00:00.000000Z')
  .meta({ description: 'ISO 8601 timestamp cursor from a prior call' })

/** An exact wei amount: a decimal string (never a JSON number, which loses precision). */
export const Wei = z.string().regex(/^\d+$/).meta({ description: 'exact amount in wei, as a decimal string' })

export const BlockNumber = z.number().int().nonnegative()

/** Fields every chain-derived answer carries beside `data`. */
export const Measured = {
  chain_id: z.number().int().meta({ description: 'chain the answer is measured on' }),
  measured_through_block: BlockNumber.nullable().meta({ description: 'last block fully ingested; the answer reflects chain data up to it' }),
}

/** Response of an endpoint whose body is not modelled yet: an object `data`. */
export const GenericData = z.object({ data: z.record(z.string(), z.unknown()) }).passthrough()
