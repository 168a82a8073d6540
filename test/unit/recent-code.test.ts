import { describe, expect, it } from 'vitest'
import type { Address, Hex } from 'viem'
import { recentCode } from '../../api/access/x402/recent-code.ts'

const A = '0x00000000000000000000000000000000000000aA' as Address
const B = '0x00000000000000000000000000000000000000bb' as Address
const C = '0x00000000000000000000000000000000000000cc' as Address

/** A chain whose code answers are counted per address; `fail` makes the next answer an error. */
function countingChain() {
  const asked: string[] = []
  let fail = false
  const getCode = async ({ address }: { address: Address }): Promise<Hex | undefined> => {
    asked.push(address.toLowerCase())
    if (fail) {
      fail = false
      throw new Error('node down')
    }
    return address.endsWith('cc') ? '0x6080' : undefined
  }
  return { asked, getCode, failNext: () => (fail = true) }
}

describe('recentCode: a payer\'s code asked once per window', () => {
  it('answers an address again from what it read within the window, in any letter case, and asks again after it', async () => {
    let now = 1_000
    const chain = countingChain()
    const getCode = recentCode(chain.getCode, 5_000, 10, () => now)
    expect(await getCode({ address: A })).toBeUndefined()
    expect(await getCode({ address: A.toLowerCase() as Address })).toBeUndefined()
    expect(await getCode({ address: C })).toBe('0x6080')
    expect(chain.asked).toEqual([A.toLowerCase(), C])
    now += 4_999
    await getCode({ address: A })
    expect(chain.asked.length).toBe(2)
    now += 1
    await getCode({ address: A })
    expect(chain.asked).toEqual([A.toLowerCase(), C, A.toLowerCase()])
  })

  it('shares one request among calls in flight, keeps no failure, and holds at most its bound of addresses', async () => {
    const chain = countingChain()
    const getCode = recentCode(chain.getCode, 5_000, 2)
    const both = await Promise.all([getCode({ address: C }), getCode({ address: C })])
    expect(both).toEqual(['0x6080', '0x6080'])
    expect(chain.asked).toEqual([C])

    chain.failNext()
    await expect(getCode({ address: B })).rejects.toThrow('node down')
    await getCode({ address: B })
    expect(chain.asked).toEqual([C, B, B])

    // C and B are kept; a third address pushes out the oldest (C), so C is asked again.
    await getCode({ address: A })
    await getCode({ address: B })
    expect(chain.asked).toEqual([C, B, B, A.toLowerCase()])
    await getCode({ address: C })
    expect(chain.asked).toEqual([C, B, B, A.toLowerCase(), C])
  })
})
