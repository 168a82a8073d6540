/**
 * Every bus topic, declared once, each with its dead-letter sibling. Records that can never
 * be processed (schema violations, undecodable payloads) go to `<topic>.dlq` with the reason.
 */
export const TOPICS = {
  chain4663Logs: 'chain.4663.logs',
  chain5042Logs: 'chain.5042.logs',
  socialPosts: 'social.posts',
  socialFollows: 'social.follows',
  tgSightings: 'tg.sightings',
  callerMirrors: 'social.caller_mirrors',
  solanaTrades: 'solana.trades',
  solanaUniverse: 'solana.universe',
  pricesEthUsd: 'prices.eth_usd',
  pricesSolUsd: 'prices.sol_usd',
  leaderboardClaims: 'leaderboard.claims',
  alerts: 'alerts.events',
} as const

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS]

export function deadLetterTopic(topic: string): string {
  return `${topic}.dlq`
}


/** A topic or consumer-group name within a namespace (empty namespace: the name itself). */
export function namespaced(namespace: string, name: string): string {
  return namespace ? `${namespace}.${name}` : name
}

/** The topic a chain's block records travel on. */
export function chainTopic(chainId: number): string {
  return `chain.${chainId}.logs`
}
