import { healthEndpoint, mcpEndpoint, metricsEndpoint, openApiEndpoint, x402CatalogEndpoint } from '../endpoints/meta.ts'
import { adminSqlEndpoint, adminVerifyEndpoint, createKeyEndpoint, faucetEndpoint, listKeysEndpoint, revokeKeyEndpoint } from '../endpoints/admin.ts'
import { badgeEndpoint } from '../endpoints/badge.ts'
import { deleteWebhookEndpoint, getWebhookEndpoint, setWebhookEndpoint, testAlertEndpoint } from '../endpoints/alerts.ts'
import { listWatchlistEndpoint, unwatchTokenEndpoint, watchTokenEndpoint } from '../endpoints/watchlist.ts'
import { callerCallsEndpoint, callerCardEndpoint, callersEndpoint } from '../endpoints/callers.ts'
import { firstCallEndpoint } from '../endpoints/first-call.ts'
import { solanaReceiptEndpoint } from '../endpoints/solana-receipt.ts'
import { identifyEndpoint } from '../endpoints/identify.ts'
import { mcpAccountEndpoints } from '../endpoints/mcp-account.ts'
import { followsOfHandleEndpoint, socialFollowsEndpoint } from '../endpoints/follows.ts'
import { mentionsEndpoint } from '../endpoints/mentions.ts'
import { momentumEndpoint } from '../endpoints/momentum.ts'
import { signalsEndpoint } from '../endpoints/signals.ts'
import { deployerEndpoint } from '../endpoints/deployer.ts'
import { feedEndpoint } from '../endpoints/feed.ts'
import { leaderboardEndpoint } from '../endpoints/leaderboard.ts'
import { searchEndpoint } from '../endpoints/search.ts'
import { statsEndpoint } from '../endpoints/stats.ts'
import { walletEndpoint } from '../endpoints/wallet.ts'
import { structureHistoryEndpoint } from '../endpoints/structure-history.ts'
import { entityEndpoint } from '../endpoints/entity.ts'
import { smartHoldersEndpoint } from '../endpoints/smart-holders.ts'
import { forensicsEndpoint, queueForensicsScanEndpoint, queueStructureScanEndpoint } from '../endpoints/scans.ts'
import { walletReceiptEndpoint } from '../endpoints/wallet-receipt.ts'
import { leaderboardClaimsEndpoint } from '../endpoints/roster.ts'
import { tokenEndpoint } from '../endpoints/token.ts'
import { reportEndpoint } from '../endpoints/report.ts'
import { verdictEndpoint } from '../endpoints/verdict.ts'
import { structureEndpoint } from '../endpoints/structure.ts'
import { arcEndpoints } from '../endpoints/arc.ts'
import { pulseEndpoint } from '../endpoints/pulse.ts'
import { agentFeaturesEndpoint } from '../endpoints/agent-features.ts'
import { basketEndpoint } from '../endpoints/basket.ts'
import { proofEndpoint } from '../endpoints/proof.ts'
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
