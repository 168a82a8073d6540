/**
 * The groups endpoints are listed under, with what each holds. An endpoint's `tags` take only
 * these names (the type says so), so /openapi.json declares every tag an operation uses.
 */
export const TAGS = {
  token: 'Token answers: stats, search, risk verdict, dossier, pulse, agent features and chart identification.',
  deployer: 'Deployer reputation and the deployer leaderboard.',
  wallet: 'Wallet records and exact wallet receipts (chain and Solana).',
  feed: 'The launch feed: new tokens as they are measured, by cursor, with a long poll at the head.',
  social: 'Callers, mentions, social momentum, follow events and first calls, measured against outcomes.',
  structure: 'Holder structure, forensics and entity answers, and the scans that compute them.',
  arc: 'Token reports, deployers, launchpads and the launch feed of chain 5042.',
  proof: 'The calibration proof and the paper basket that measure the service against outcomes.',
  account: 'What a subscription key owns: watchlist, alert webhook, and the MCP connector sign-in.',
  service: 'Machine-readable descriptions (this document, the x402 catalog), service statistics and the MCP server.',
  operations: 'Readiness and Prometheus metrics for whoever runs the service.',
  admin: 'Operator endpoints, behind the operator token (SVC_ADMIN_TOKEN).',
} as const satisfies Record<string, string>

export type Tag = keyof typeof TAGS
