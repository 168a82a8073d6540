/**
 * The two chains the service reads, and what each is served by. Chain 4663 is the followed chain:
 * every token product (token and deployer records, the +15 min verdicts, holders, receipts,
 * structure, scans) reads it. Chain 5042 goes through the same processor into the same raw
 * tables, but only /arc reads it, from its own tables (products/arc, migration 024).
 */
export const ARC_CHAIN = 5042 as const

/**
 * Whether a chain keeps the token products' state: every chain but the arc chain, whose records
 * no endpoint reads. That state is its batches' token and deployer records (token_state,
 * deployer_state) and launch verdicts, and what the views over its raw rows keep for those
 * products: transfer paths, holder balances, pool liquidity, token pools (the views of migration
 * 035 leave the arc chain out, by this same id). A batch of the arc chain still publishes its
 * watermark in serving_changes (the /arc answers follow it).
 */
export function keepsTokenProducts(chainId: number): boolean {
  return chainId !== ARC_CHAIN
}
