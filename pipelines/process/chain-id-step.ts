import type { ChainBlock } from '../records/chain-block.ts'
import { dlq, ok, type Step } from '../consumer/step-result.ts'

/** A block record of another chain on this chain's topic can never be ingested here. */
export function createChainIdStep(chainId: number): Step<ChainBlock, ChainBlock> {
  return {
    name: 'chain-id',
    run: (block) => (block.chainId === chainId ? ok(block) : dlq(`wrong_chain: ${block.chainId}`)),
  }
}
