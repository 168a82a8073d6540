/** Lamports in one SOL; micro-USD in one USD; price units (1e-8 USD) in one USD. */
export const LAMPORTS_PER_SOL = 1_000_000_000n
export const MICRO_USD_PER_USD = 1_000_000n
export const PRICE_E8 = 100_000_000n
