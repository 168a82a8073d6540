import type { VerifyOptions, VerifyReport } from '../core/records/verify-report.ts'
import type { SocialServing } from './serving/social-serving.ts'
import type { SolanaServing } from './serving/solana-serving.ts'
import type { TokenServing } from './serving/token-serving.ts'
import type { ArcServing } from './serving/arc-serving.ts'
import type { ReceiptServing } from './serving/receipt-serving.ts'
import type { LeaderboardClaim } from '../core/records/leaderboard-claim.ts'
import type { StalledDataCheck } from './health/stalled-data.ts'
import type { KeyRegistry } from './access/keys.ts'
import type { McpConnector } from './access/mcp-connector.ts'
import type { TextReader } from './identify/text-reader.ts'
import type { UrlPolicy } from './alerts/webhook-url.ts'
import type { WebhookStore } from './alerts/webhook-store.ts'
import type { AlertEvent } from '../core/records/alert.ts'
import type { ScanQueue } from '../core/scan-queue.ts'

/** Alert webhooks as the /alerts/* endpoints see them. */
export interface AlertsDeps {
  webhooks: WebhookStore
  /** Where a webhook may point (loopback only when explicitly allowed). */
  policy: UrlPolicy
  /** Put an alert on the bus for the delivery worker. */
  publish(e: AlertEvent): Promise<void>
}

/** Test USDC on the local payments chain (`svc start` without a facilitator or payments RPC). */
export interface Faucet {
  network: string
  asset: string
  rpcUrl: string
  /** Mint `atomic` 6-decimal units to `to`; answers the transaction and the new balance. */
  mint(to: string, atomic: bigint): Promise<{ transaction: string; balance: bigint }>
}

declare module '../core/endpoint/deps.ts' {
  /** What the API process adds to the dependencies every process has (core/endpoint/deps.ts). */
  interface ApiDeps {
    /** Subscription keys (hashed in ClickHouse). */
    keys: KeyRegistry
    /** Chain-4663 token and deployer records, read by key and cached until the pipeline changes them. */
    tokens: TokenServing
    /** Caller records and mutual-follow clusters, read by key and cached until the pipeline changes them. */
    social: SocialServing
    /** Chain-5042 launches, pads and deployers (/arc), read as of the 5042 watermark and cached per key until it moves. */
    arc: ArcServing
    /** Solana venue receipts, read by wallet and cached per wallet until the venue's ingest moves. */
    solana: SolanaServing
    /** Wallet receipts of the tracked roster, cached per wallet until a batch changes them. */
    receipts: ReceiptServing
    /** Publishes an operator's leaderboard (the roster) on leaderboard.claims. */
    roster: { publish(claims: LeaderboardClaim[]): Promise<void> }
    /** Structure and forensics scan jobs (queued on the bus for the scans role). */
    scans: ScanQueue
    /** Alert webhooks; absent in processes that do not serve /alerts/*. */
    alerts?: AlertsDeps
    /** The MCP connector (/mcp/account): OAuth clients, codes and connection tokens. */
    connector?: McpConnector
    /** Text off images (/identify); absent where no image is read. */
    textReader?: TextReader
    /** Present only on the local payments chain. */
    faucet?: Faucet
    /** The audit of kept views against their raw rows (pipelines/verify), run on request (POST /admin/verify). */
    verify(opts: VerifyOptions): Promise<VerifyReport>
    /** The scheduled audit of kept views (svc start): which views drifted, for /health. */
    audit?: { driftedViews(): string[]; record(report: VerifyReport): void }
    /** Readiness checks for /health, by component name. */
    readiness: Record<string, () => Promise<void>>
    /** /health's `degraded` cause when the served data stands still while the bus moves (api/health/stalled-data.ts). */
    stalledData?: StalledDataCheck
  }
}
