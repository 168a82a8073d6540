import { describe, expect, it } from 'vitest'
import type { BusMessage } from '../../core/bus/types.ts'
import { createChainIdStep } from '../../pipelines/process/chain-id-step.ts'
import type { ChainBlock } from '../../pipelines/records/chain-block.ts'

const block = (chainId: number) => ({ chainId, number: 1 }) as ChainBlock
const msg: BusMessage = { topic: 'chain.4663.logs', partition: 0, offset: '0', timestamp: 0, key: null, value: '' }

describe('createChainIdStep()', () => {
  it('createChainIdStep() passes a block of its chain and dead-letters one of another chain', () => {
    const step = createChainIdStep(4663)
    expect(step.run(block(4663), msg)).toEqual({ kind: 'ok', value: block(4663) })
    expect(step.run(block(5042), msg)).toEqual({ kind: 'dlq', reason: 'wrong_chain: 5042' })
  })
})
