import { keccak256, toHex } from 'viem'
import type { ChainBlock } from '../records/chain-block.ts'

/**
 * Launchpads of a simulated chain that attributes launches (5042). The simulated world deploys
 * every token with a top-level creation whose transaction also mints the supply; on this chain a
 * share of those launches goes through a launchpad instead, as a pad does it on a real chain: the
 * transaction is sent to the pad, the pad creates the token inside it (no top-level creation is
 * visible), the token mints its supply and the pad emits an event of its own (no standard ABI).
 * The source then states what the attribution needs: each log's transaction `to` and the
 * metadata of the tokens first minted (`minted`).
 */

function labelAddress(label: string): string {
  return '0x' + keccak256(toHex(label)).slice(26)
}

/** Simulated pads of `chainId` (fixed addresses, independent of the seed). */
export function simLaunchpads(chainId: number): string[] {
  return [0, 1, 2].map((i) => labelAddress(`chain-sim/${chainId}/launchpad-${i}`))
}

/** An event of the pads' own (any topic works: the rule is ABI-free). */
const PAD_EVENT_TOPIC0 = keccak256(toHex('TokenLaunched(address,address)'))
const word = (address: string) => `0x${address.slice(2).padStart(64, '0')}`

/**
 * Rewrite a block so that the creations picked by the token address (three in four) are pad
 * launches on one of `pads`; every log of such a transaction names the pad as its `to`.
 */
export function withPadLaunches(block: ChainBlock, pads: string[]): ChainBlock {
  if (pads.length === 0 || block.creations.length === 0) return block
  const viaPad = new Map<string, string>()
  const minted: NonNullable<ChainBlock['minted']> = []
  const creations = block.creations.filter((c) => {
    const pick = parseInt(c.address.slice(-4), 16)
    if (pick % 4 === 3) return true
    viaPad.set(c.txHash, pads[pick % pads.length]!)
    minted.push({ address: c.address, erc20: c.erc20 })
    return false
  })
  if (viaPad.size === 0) return block
  const logs = block.logs.map((l) => (viaPad.has(l.txHash) ? { ...l, txTo: viaPad.get(l.txHash)! } : l))
  let next = logs.length
  for (const c of block.creations) {
    const pad = viaPad.get(c.txHash)
    if (!pad) continue
    logs.push({ logIndex: next++, txHash: c.txHash, txIndex: c.txIndex, txFrom: c.deployer, txTo: pad, address: pad, topics: [PAD_EVENT_TOPIC0, word(c.address), word(c.deployer)], data: '0x' })
  }
  return { ...block, creations, logs, minted: [...(block.minted ?? []), ...minted] }
}
