/**
 * Wallet labels of the holder structure (DESIGN §7, issue 11): the rules, defined once.
 * Inputs are a token's own transfers (we ingest logs, not ETH value transfers, so funding is
 * read from the token's transfers).
 */

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

export type HolderLabel =
  | { kind: 'deployer' }
  | { kind: 'insider'; from: string; received_wei: string; block: number }
  | { kind: 'entity'; entity_id: string; wallets: number }
  | { kind: 'round_allocation'; received_wei: string; share: string }
  | { kind: 'identity'; handle: string }
  | { kind: 'smart'; basis: 'caller_grade' | 'fifo_realized' }

export const HOLDER_LABEL_KINDS = ['deployer', 'insider', 'entity', 'round_allocation', 'identity', 'smart'] as const

interface Transfer {
  block: number
  from: string
  to: string
  value: bigint
}

/**
 * Insiders. A wallet is *deployer-funded* when, before the token's first swap, it received the
 * token off-market (not from one of the token's pools) from the deployer, from the zero
 * address (supply minted to it at launch, which only the deployer's contract does), or from
 * another deployer-funded wallet: the set grows along the token's pre-swap transfers in chain
 * order, starting from the deployer. Every deployer-funded wallet other than the deployer is an
 * insider. `preSwap` must be the token's transfers before its first swap, in chain order; the
 * answer names, per insider, its first such receipt (who sent it, how much, in which block).
 */
export function insidersOf(
  deployer: string | null,
  pools: ReadonlySet<string>,
  preSwap: readonly Transfer[],
): Map<string, { from: string; received: bigint; block: number }> {
  const funded = new Set<string>(deployer ? [deployer, ZERO_ADDRESS] : [ZERO_ADDRESS])
  const out = new Map<string, { from: string; received: bigint; block: number }>()
  for (const t of preSwap) {
    if (!funded.has(t.from) || pools.has(t.from) || pools.has(t.to) || t.to === ZERO_ADDRESS || t.to === deployer) continue
    if (t.from === ZERO_ADDRESS && !deployer) continue
    funded.add(t.to)
    if (!out.has(t.to)) out.set(t.to, { from: t.from, received: t.value, block: t.block })
  }
  return out
}

/** Round shares: a multiple of 0.1% of supply, from 0.1% to 50%. */
export const ROUND_SHARE_DENOMINATOR = 1000n
export const ROUND_SHARE_MAX_NUMERATOR = 500n
/** Whole powers of ten of tokens count from this many tokens up. */
export const ROUND_TOKENS_MIN = 1000n

/**
 * A round-number allocation: one off-market transfer (not from a pool) received before the
 * token's first swap whose amount is exactly k/1000 of the supply (k from 1 to 500: 0.1%,
 * 0.5%, 1%, ...), or exactly a whole power of ten of tokens of at least 1,000 tokens (by the
 * token's decimals; 18 when unknown). The deployer's own receipts are not allocations.
 * Answers the first such receipt per wallet and its share of supply (a decimal string).
 */
export function roundAllocationsOf(
  deployer: string | null,
  pools: ReadonlySet<string>,
  preSwap: readonly Transfer[],
  supply: bigint,
  decimals: number | null,
): Map<string, { received: bigint; share: string }> {
  const out = new Map<string, { received: bigint; share: string }>()
  const unit = 10n ** BigInt(decimals ?? 18)
  for (const t of preSwap) {
    if (pools.has(t.from) || pools.has(t.to) || t.to === ZERO_ADDRESS || t.to === deployer || out.has(t.to) || t.value <= 0n) continue
    if (isRoundAmount(t.value, supply, unit)) out.set(t.to, { received: t.value, share: shareOf(t.value, supply) })
  }
  return out
}

export function isRoundAmount(value: bigint, supply: bigint, unit: bigint): boolean {
  if (supply > 0n && (value * ROUND_SHARE_DENOMINATOR) % supply === 0n) {
    const k = (value * ROUND_SHARE_DENOMINATOR) / supply
    if (k >= 1n && k <= ROUND_SHARE_MAX_NUMERATOR) return true
  }
  if (value % unit !== 0n) return false
  let tokens = value / unit
  if (tokens < ROUND_TOKENS_MIN) return false
  while (tokens % 10n === 0n) tokens /= 10n
  return tokens === 1n
}

/** value / supply as a decimal string with 9 digits after the point (exact truncation). */
export function shareOf(value: bigint, supply: bigint): string {
  if (supply <= 0n) return '0'
  const scaled = (value * 1_000_000_000n) / supply
  const s = scaled.toString().padStart(10, '0')
  return `${s.slice(0, -9)}.${s.slice(-9)}`.replace(/\.?0+$/, '') || '0'
}

/**
 * Entities (multi-wallet). Two wallets are linked when one sent the token to the other
 * directly, off-market: neither side is one of the token's pools or the zero address. Shared
 * funding is covered by the same edges: wallets funded by one wallet are linked through it.
 * Two kinds of wallet do not link others: the deployer (its recipients carry `insider`, and a
 * launch allocation would otherwise merge every recipient into one entity) and a hub, a wallet
 * with more than ENTITY_HUB_DEGREE off-market counterparties in the token (a router, an
 * exchange or an airdropper). An entity is a connected component of at least two wallets; its
 * id is its lowest address. The graph is explored from the labelled wallets up to
 * ENTITY_MAX_DEPTH edges away and ENTITY_MAX_WALLETS wallets.
 */
export const ENTITY_HUB_DEGREE = 25
export const ENTITY_MAX_DEPTH = 3
export const ENTITY_MAX_WALLETS = 5000

/**
 * Components of the link graph. `edges` are the links read for `expanded` wallets (whose
 * counterparties were all read); `hubs` are excluded.
 */
export function entitiesOf(edges: ReadonlyArray<{ wallet: string; peer: string }>, hubs: ReadonlySet<string>): Map<string, { entityId: string; wallets: number }> {
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    let r = x
    while (parent.get(r) !== r) r = parent.get(r)!
    let c = x
    while (c !== r) {
      const n = parent.get(c)!
      parent.set(c, r)
      c = n
    }
    return r
  }
  const add = (x: string) => {
    if (!parent.has(x)) parent.set(x, x)
  }
  for (const { wallet, peer } of edges) {
    if (hubs.has(wallet) || hubs.has(peer) || wallet === peer || wallet === ZERO_ADDRESS || peer === ZERO_ADDRESS) continue
    add(wallet)
    add(peer)
    const a = find(wallet)
    const b = find(peer)
    // The lower address becomes the root: the root of a component is its lowest address.
    if (a !== b) a < b ? parent.set(b, a) : parent.set(a, b)
  }
  const size = new Map<string, number>()
  for (const x of parent.keys()) size.set(find(x), (size.get(find(x)) ?? 0) + 1)
  const out = new Map<string, { entityId: string; wallets: number }>()
  for (const x of parent.keys()) {
    const root = find(x)
    const n = size.get(root)!
    if (n >= 2) out.set(x, { entityId: root, wallets: n })
  }
  return out
}
