import type { VerifyOptions, VerifyReport } from '../core/records/verify-report.ts'
import type { StalledDataCheck } from './health/stalled-data.ts'
import type { KeyRegistry } from './access/keys.ts'
import type { McpConnector } from './access/mcp-connector.ts'

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
    /** The MCP connector (/mcp/account): OAuth clients, codes and connection tokens. */
    connector?: McpConnector
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
