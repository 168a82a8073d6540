import { healthEndpoint, mcpEndpoint, metricsEndpoint, openApiEndpoint, x402CatalogEndpoint } from '../endpoints/meta.ts'
import { adminSqlEndpoint, adminVerifyEndpoint, createKeyEndpoint, faucetEndpoint, listKeysEndpoint, revokeKeyEndpoint } from '../endpoints/admin.ts'
import { badgeEndpoint } from '../../products/token/badge-endpoint.ts'
import { deleteWebhookEndpoint, getWebhookEndpoint, setWebhookEndpoint, testAlertEndpoint } from '../../products/alerts/alerts-endpoints.ts'
import { listWatchlistEndpoint, unwatchTokenEndpoint, watchTokenEndpoint } from '../../products/watchlist/watchlist-endpoints.ts'
import { callerCallsEndpoint, callerCardEndpoint, callersEndpoint } from '../../products/social/callers-endpoint.ts'
import { firstCallEndpoint } from '../../products/social/first-call-endpoint.ts'
import { solanaReceiptEndpoint } from '../../products/wallet/solana-receipt-endpoint.ts'
import { identifyEndpoint } from '../../products/identify/identify-endpoint.ts'
import { mcpAccountEndpoints } from '../endpoints/mcp-account.ts'
import { followsOfHandleEndpoint, socialFollowsEndpoint } from '../../products/social/follows-endpoint.ts'
import { mentionsEndpoint } from '../../products/social/mentions-endpoint.ts'
import { momentumEndpoint } from '../../products/social/momentum-endpoint.ts'
import { signalsEndpoint } from '../../products/social/signals-endpoint.ts'
import { deployerEndpoint } from '../../products/token/deployer-endpoint.ts'
import { feedEndpoint } from '../../products/feed/feed-endpoint.ts'
import { leaderboardEndpoint } from '../../products/token/leaderboard-endpoint.ts'
import { searchEndpoint } from '../../products/token/search-endpoint.ts'
import { statsEndpoint } from '../../products/token/stats-endpoint.ts'
import { walletEndpoint } from '../../products/wallet/wallet-endpoint.ts'
import { structureHistoryEndpoint } from '../../products/structure/structure-history-endpoint.ts'
import { entityEndpoint } from '../../products/structure/entity-endpoint.ts'
import { smartHoldersEndpoint } from '../../products/structure/smart-holders-endpoint.ts'
import { forensicsEndpoint, queueForensicsScanEndpoint, queueStructureScanEndpoint } from '../../products/structure/scans-endpoint.ts'
import { walletReceiptEndpoint } from '../../products/wallet/wallet-receipt-endpoint.ts'
import { leaderboardClaimsEndpoint } from '../../products/wallet/roster-endpoint.ts'
import { tokenEndpoint } from '../../products/token/token-endpoint.ts'
import { reportEndpoint } from '../../products/verdict/report-endpoint.ts'
import { verdictEndpoint } from '../../products/verdict/verdict-endpoint.ts'
import { structureEndpoint } from '../../products/structure/structure-endpoint.ts'
import { arcEndpoints } from '../../products/arc/arc-endpoint.ts'
import { pulseEndpoint } from '../../products/pulse/pulse-endpoint.ts'
import { agentFeaturesEndpoint } from '../../products/features/agent-features-endpoint.ts'
import { basketEndpoint } from '../../products/verdict/basket-endpoint.ts'
import { proofEndpoint } from '../../products/verdict/proof-endpoint.ts'
import type { ServedEndpoint } from '../../core/endpoint/deps.ts'

/**
 * The one endpoint catalog. Routes, /openapi.json, /.well-known/x402 and the MCP tools are all
 * generated from this list; an endpoint is declared in exactly one place.
 */
export const catalog: ServedEndpoint[] = [
  statsEndpoint,
  tokenEndpoint,
  deployerEndpoint,
  walletEndpoint,
  walletReceiptEndpoint,
  feedEndpoint,
  searchEndpoint,
  badgeEndpoint,
  leaderboardEndpoint,
  callerCardEndpoint,
  callerCallsEndpoint,
  callersEndpoint,
  mentionsEndpoint,
  momentumEndpoint,
  socialFollowsEndpoint,
  followsOfHandleEndpoint,
  signalsEndpoint,
  firstCallEndpoint,
  solanaReceiptEndpoint,
  watchTokenEndpoint,
  listWatchlistEndpoint,
  unwatchTokenEndpoint,
  setWebhookEndpoint,
  getWebhookEndpoint,
  deleteWebhookEndpoint,
  testAlertEndpoint,
  createKeyEndpoint,
  listKeysEndpoint,
  revokeKeyEndpoint,
  adminSqlEndpoint,
  adminVerifyEndpoint,
  leaderboardClaimsEndpoint,
  faucetEndpoint,
  verdictEndpoint,
  structureEndpoint,
  reportEndpoint,
  pulseEndpoint,
  agentFeaturesEndpoint,
  basketEndpoint,
  proofEndpoint,
  identifyEndpoint,
  ...mcpAccountEndpoints,
  queueStructureScanEndpoint,
  forensicsEndpoint,
  queueForensicsScanEndpoint,
  structureHistoryEndpoint,
  entityEndpoint,
  smartHoldersEndpoint,
  ...arcEndpoints,
  openApiEndpoint,
  x402CatalogEndpoint,
  healthEndpoint,
  metricsEndpoint,
  mcpEndpoint,
] as ServedEndpoint[]
