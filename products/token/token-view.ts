import { z } from 'zod'
import { REAL_DEAD_IN_WORDS as W } from './real-token.ts'
import { DEAD_REASONS } from './token-status.ts'
import type { DeployerRecord } from './deployer-state.ts'
import type { TokenRecord } from './token-state.ts'
import { BlockNumber, Wei } from '../../core/endpoint/schemas.ts'

/**
 * The JSON view of a token record (and of its latest quote), shared by every endpoint that
 * shows a token, with the zod schema that documents it.
 */
export const PriceView = z.object({
  pool: z.string(),
  price_weth: z.string().meta({ description: 'WETH per whole token at the latest swap (decimal string)' }),
  fdv_weth_wei: Wei.meta({ description: 'fully diluted value: supply × price, in WETH wei' }),
  eth_usd: z.number().nullable().meta({ description: 'ETH/USD close of the minute the quote was observed in' }),
  fdv_usd: z.number().nullable(),
  observed_at: z.string().meta({ description: 'block time of the swap the quote comes from' }),
  observed_block: BlockNumber,
})

export const TokenView = z.object({
  token: z.string(),
  found: z.boolean(),
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  decimals: z.number().int().nullable(),
  deployer: z.string().nullable().meta({ description: 'from of the transaction that created the contract' }),
  created_block: BlockNumber.nullable(),
  created_at: z.string().nullable(),
  launch: z.object({ pool: z.string(), protocol: z.string(), block: BlockNumber, launched_at: z.string() }).nullable().meta({ description: "the token's first WETH pool" }),
  swaps: z.number().int().meta({ description: 'swap events against WETH pools' }),
  weth_volume_wei: Wei.meta({ description: 'WETH in plus WETH out over all swaps, exact wei' }),
  unique_traders: z.number().int().meta({ description: 'distinct transaction senders of swaps' }),
  first_swap_block: BlockNumber.nullable(),
  last_swap_block: BlockNumber.nullable(),
  last_swap_at: z.string().nullable(),
  is_real: z.boolean().meta({ description: `>= ${W.swaps} swaps, >= ${W.traders} traders and >= ${W.weth} WETH volume, reached once` }),
  real_block: BlockNumber.nullable().meta({ description: 'the block in which the token became real' }),
  real_at: z.string().nullable(),
  dead: z.boolean(),
  dead_reason: z.enum(DEAD_REASONS).nullable(),
  price: PriceView.nullable(),
  deployer_score: z.number().int().nullable(),
  deployer_band: z.string().nullable(),
})

export function priceView(t: TokenRecord): z.infer<typeof PriceView> | null {
  const q = t.quote
  if (!q) return null
  return { pool: q.pool, price_weth: q.priceWeth, fdv_weth_wei: q.fdvWethWei.toString(), eth_usd: q.ethUsd, fdv_usd: q.fdvUsd, observed_at: q.observedAt, observed_block: q.observedBlock }
}

/** A token's view; `d` is its deployer's record. */
export function tokenView(address: string, t: TokenRecord | undefined, d: DeployerRecord | undefined): z.infer<typeof TokenView> {
  return {
    token: address,
    found: Boolean(t),
    name: t?.name || null,
    symbol: t?.symbol || null,
    decimals: t?.decimals ?? null,
    deployer: t?.deployer ?? null,
    created_block: t?.createdBlock ?? null,
    created_at: t?.createdAt ?? null,
    launch: t?.launch ? { pool: t.launch.pool, protocol: t.launch.protocol, block: t.launch.block, launched_at: t.launch.launchedAt } : null,
    swaps: t?.swaps ?? 0,
    weth_volume_wei: (t?.wethVolumeWei ?? 0n).toString(),
    unique_traders: t?.traders ?? 0,
    first_swap_block: t?.firstSwapBlock ?? null,
    last_swap_block: t?.lastSwapBlock ?? null,
    last_swap_at: t?.lastSwapAt ?? null,
    is_real: t?.realBlock != null,
    real_block: t?.realBlock ?? null,
    real_at: t?.realAt ?? null,
    dead: Boolean(t?.dead),
    dead_reason: t?.dead ?? null,
    price: t ? priceView(t) : null,
    deployer_score: d?.score ?? null,
    deployer_band: d?.band ?? null,
  }
}
