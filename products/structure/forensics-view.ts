import { z } from 'zod'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'

/** The forensics answer a scan stores and GET /forensics/{token} serves (products/structure/forensics.ts computes it). */
export const ForensicsView = z.object({
  token: z.string(),
  deployer: z.string().nullable().meta({ description: "the `from` of the transaction that created the token's contract" }),
  created_block: BlockNumber.nullable(),
  launch_pool: z.string().nullable().meta({ description: 'the first WETH pool of the token (liquidity covers every pool of the token)' }),
  launch_block: BlockNumber.nullable(),
  first_swap_block: BlockNumber.nullable().meta({ description: 'block of the first swap; null while it has not traded' }),
  supply_wei: Wei.meta({ description: 'minted minus burned, now' }),
  deployer_funding: z
    .object({
      rule: z.string().meta({ description: 'what counts as funding, from the chain data we hold' }),
      funders: z.array(z.object({ address: z.string(), token: z.string(), value_wei: Wei, block: BlockNumber, tx_hash: z.string() })),
    })
    .meta({ description: 'who funded the deployer before it created the token' }),
  prelaunch: z.object({
    before_block: BlockNumber.meta({ description: 'transfers below this block are pre-launch: the first swap block, or the block after the measured one' }),
    minted: z.array(z.object({ to: z.string(), value_wei: Wei })),
    transfers_total: z.number().int(),
    transfers: z.array(z.object({ block: BlockNumber, tx_hash: z.string(), from: z.string(), to: z.string(), value_wei: Wei })),
    transfers_truncated: z.boolean(),
    recipients: z.array(z.object({ address: z.string(), received_wei: Wei, share_of_supply: z.string().meta({ description: 'received / supply now, 9 decimals' }), from_deployer_wei: Wei, is_pool: z.boolean() })),
    recipients_total: z.number().int(),
    off_market_from_deployer_wei: Wei.meta({ description: 'sent by the deployer before the first swap to wallets other than itself and the pools' }),
  }),
  liquidity: z
    .array(z.object({ pool: z.string(), provider: z.string(), added: Wei, removed: Wei, is_deployer: z.boolean() }))
    .meta({ description: "per pool and provider, liquidity added and pulled, in the pool protocol's units (v2: WETH wei of Mint/Burn)" }),
  insiders_now: z
    .object({ wallets: z.number().int(), balance_wei: Wei, share_of_supply: z.string() })
    .meta({ description: 'what the insider-labelled wallets hold at the measured block' }),
})
export type ForensicsView = z.infer<typeof ForensicsView>
