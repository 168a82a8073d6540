import { seedToU32 } from './prng.ts'

const SYLLABLES = ['PE', 'PO', 'DO', 'GE', 'MO', 'ON', 'KI', 'TA', 'BA', 'LU', 'NA', 'ZO', 'RI', 'WA', 'FU', 'XI']
const NOUNS = ['Pepe', 'Doge', 'Moon', 'Frog', 'Cat', 'Rocket', 'Whale', 'Chad', 'Based', 'Turbo', 'Giga', 'Wojak']

/**
 * ERC20 metadata of a simulated token, a pure function of the token address and the seed.
 * Symbols are drawn from a small alphabet on purpose: several tokens share a symbol, as copycat
 * launches do on real chains, so search has symbol collisions to warn about.
 */
export function simTokenMetadata(address: string, seed: number | string): { name: string; symbol: string; decimals: number } {
  const h = seedToU32(`token-name/${seed}/${address}`)
  const symbol = SYLLABLES[h % SYLLABLES.length]! + SYLLABLES[(h >>> 4) % SYLLABLES.length]!
  const name = `${NOUNS[(h >>> 8) % NOUNS.length]} ${NOUNS[(h >>> 12) % NOUNS.length]}`
  return { name, symbol, decimals: 18 }
}
