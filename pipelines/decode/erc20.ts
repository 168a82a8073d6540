import { parseAbi, toEventSelector } from 'viem'
import { malformed, shapeError, topicAddress, word } from './hex.ts'
import type { EventDecoder } from './types.ts'

/** ERC20 events we decode; also what the simulator encodes with. */
export const erc20Abi = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])

const TRANSFER = 'Transfer(address,address,uint256)'
export const TRANSFER_TOPIC0 = toEventSelector(erc20Abi[0])

// ERC721 Transfer has the same topic0 with the tokenId indexed (4 topics, no data): it is
// another standard's event, so null rather than malformed.
const transfer: EventDecoder = {
  event: TRANSFER,
  topic0: TRANSFER_TOPIC0,
  decode(log) {
    const t = log.topics
    if (t.length === 4) return null
    const bad = shapeError(t, log.data, 3, 1)
    if (bad !== null) return malformed(TRANSFER, bad)
    return {
      type: 'erc20_transfer',
      address: log.address.toLowerCase(),
      from: topicAddress(t[1]),
      to: topicAddress(t[2]),
      value: word(log.data, 0),
    }
  },
}

export const erc20Decoders: readonly EventDecoder[] = [transfer]
