import { getAddress, type Hex } from 'viem'
import type { Rng } from './prng.ts'

/**
 * Text of simulated posts. Each mention names its token in one of four ways, as posts do: the
 * address in the text, a dex or explorer link, both a cashtag and the address, or a bare
 * cashtag (which the extractor cannot settle when symbols collide). Some chatter carries dollar
 * amounts, `$ETH`, or a transaction link: things an extractor must not take for a token.
 */
export type RefStyle = 'address' | 'link' | 'both' | 'cashtag'
export type Voice = 'early' | 'late' | 'noise' | 'cluster' | 'crowd' | 'again'

export interface PostBody {
  text: string
  links: string[]
}

const LINES: Record<Voice, readonly string[]> = {
  early: ['fresh launch, deployer wallet looks clean', 'early on this one, small bag', 'liquidity just went in, watching', 'quiet launch, nobody has it yet', 'first buyers look organic'],
  late: ['volume keeps coming in', 'chart is going vertical', 'still early if you zoom out', 'breaking out, holders climbing', 'this one has legs'],
  noise: ['might send', 'aped, wish me luck', 'idk but the name is funny', 'random find', 'could be something'],
  cluster: ['do not fade this', 'LFG, loading more', 'we are so early', 'team is based, send it', 'next 100x, not financial advice'],
  crowd: ['anyone in', 'thoughts on', 'looks interesting', 'saw this in a group', 'is it too late for'],
  again: ['still holding', 'adding on the dip', 'told you about this one', 'up since my call', 'not selling yet'],
}

const CHATTER = [
  'gm',
  'market is slow today',
  'took $5k off the table, back to eth',
  'gas is cheap, good time to rotate',
  '$ETH looking heavy here',
  'put $100 into a random launch, lets see',
  'new week, new narratives',
  'who is still up this late',
  'rugs everywhere today, be careful',
  'best entries are the boring ones',
]

/** A post about `token` in `style`, worded for `voice`. */
export function mentionBody(rng: Rng, voice: Voice, token: { address: string; symbol: string }, style: RefStyle, chainId: number): PostBody {
  const line = rng.pick(LINES[voice])
  const tag = `$${rng.chance(0.1) ? token.symbol.toLowerCase() : token.symbol}`
  const address = rng.chance(0.5) ? getAddress(token.address as Hex) : token.address
  switch (style) {
    case 'address':
      return { text: rng.chance(0.5) ? `${line} ${address}` : `ca: ${address} ${line}`, links: [] }
    case 'both':
      return { text: `${tag} ${line}\n${address}`, links: [] }
    case 'cashtag':
      return { text: rng.chance(0.5) ? `${tag} ${line}` : `${line} ${tag}`, links: [] }
    case 'link':
      return {
        text: line,
        links: [rng.chance(0.5) ? `https://dex.example/${chainId}/${address}` : `https://explorer.example/${chainId}/token/${address}`],
      }
  }
}

/** A post that names no token. */
export function chatterBody(rng: Rng, chainId: number): PostBody {
  const text = rng.pick(CHATTER)
  return rng.chance(0.1) ? { text: 'my last trade', links: [`https://explorer.example/${chainId}/tx/0x${rng.hex(64)}`] } : { text, links: [] }
}
