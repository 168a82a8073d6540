import { z } from 'zod'

/**
 * Configuration: the environment variables of DESIGN §6, parsed once with zod and frozen.
 * The variable names are a contract with operators; a bad value stops the process with one
 * line naming the variable and what was expected (see `ConfigError`).
 */

const addressList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^0x[0-9a-f]{40}$/, 'a comma list of 0x addresses')))

const optionalUrl = z.url({ error: 'a URL' }).optional()
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'a 0x-prefixed 32-byte hex private key').optional()
const nonNegInt = (def: number) => z.coerce.number({ error: 'an integer' }).int('an integer').nonnegative('>= 0').default(def)

const EnvSchema = z.object({
  PORT: z.coerce.number({ error: 'a port number' }).int().min(0, 'a port 0-65535').max(65535, 'a port 0-65535').default(8080),
  HOST: z.string().min(1, 'a host name or address').default('127.0.0.1'),
  /** The pipeline and sim roles serve GET /health and GET /metrics on this port (on HOST); unset: none. */
  HEALTH_PORT: z.coerce.number({ error: 'a port number' }).int().min(0, 'a port 0-65535').max(65535, 'a port 0-65535').optional(),
  DATA_DIR: z.string().min(1, 'a directory path').default('./data'),
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (quotas and rate caps are
   * per IP): a number of hops, or a comma list of proxy addresses/CIDRs. Unset: none (the
   * connection's address), so a client cannot pick its own IP.
   */
  TRUST_PROXY: z
    .string()
    .transform((s, ctx) => {
      if (/^\d{1,2}$/.test(s)) return Number(s)
      const list = s.split(',').map((x) => x.trim()).filter(Boolean)
      if (!list.length || !list.every((x) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(x))) {
        ctx.addIssue({ code: 'custom', message: 'a number of hops or a comma list of proxy addresses/CIDRs' })
        return z.NEVER
      }
      return list.join(',')
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'one of fatal|error|warn|info|debug|trace|silent' }).default('info'),

  CLICKHOUSE_URL: optionalUrl,
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  /**
   * Server mode: the ClickHouse user the SQL door (/clickhouse) runs analysts' queries as, granted
   * only the analyst tables (svc engine's `analyst`; on a cluster, a user with the analyst role),
   * so the server's grants hold where the door's own check might miss. Unset: the service's user.
   */
  CLICKHOUSE_ANALYST_USER: z.string().optional(),
  CLICKHOUSE_ANALYST_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a database name').default('default'),
  /**
   * `svc start` without CLICKHOUSE_URL: `process` runs the engine on DATA_DIR as its own child
   * process (svc engine's), spoken to over ClickHouse's HTTP interface, so statements run side by
   * side (an API read never queues behind the pipeline's); `in-process` runs chDB inside the
   * service, one statement at a time.
   */
  EMBEDDED_ENGINE: z.enum(['process', 'in-process'], { error: 'process or in-process' }).default('process'),
  /**
   * How long a ClickHouse server may stay silent on a request before it counts as unavailable
   * (503 on the API, a retry in the pipelines). Server mode only: chDB runs in process.
   */
  CLICKHOUSE_REQUEST_TIMEOUT_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(100, '>= 100').default(5_000),

  KAFKA_BROKERS: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'a comma list of host:port')).min(1, 'at least one host:port'))
    .optional(),
  /** Prefix for topic and consumer-group names, so several deployments (or test runs) share a broker. */
  BUS_NAMESPACE: z.string().regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ or -').default(''),
  /**
   * Blocks per insert batch in the chain processors: a catch-up's batch (a live one is what
   * arrived). Each batch has a fixed cost in the engine (its refresh statements, a part per table),
   * so on the default world 6,000 took the engine from about 85 to 60 s of CPU over the 24 h
   * backfill; the node heap peaks at about 2 GB during it (2,000: about 1 GB).
   */
  PIPELINE_BATCH_BLOCKS: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(10_000, '<= 10000').default(6_000),
  /** Small consumers (social, prices, Solana) batch by time: the pause after a batch that did not fill, ms (0: none). */
  PIPELINE_FLUSH_MS: z.coerce.number({ error: 'an integer' }).int('an integer').min(0, '>= 0').max(10_000, '<= 10000').default(1000),
  /** Token, deployer and launch-history records an API process keeps in memory (least recently used evicted). */
  SERVING_CACHE_ENTRIES: z.coerce.number({ error: 'an integer' }).int('an integer').min(100, '>= 100').max(10_000_000, '<= 10000000').default(100_000),
  /** Fraction of each view's keys the scheduled audit of kept views checks per pass (0: no scheduled audit). */
  AUDIT_SAMPLE: z.coerce.number({ error: 'a fraction' }).min(0, '>= 0').max(1, '<= 1').default(0.01),
  /** Share of one core the scheduled audit may use: it waits after each view so its busy time stays under it. */
  AUDIT_CPU_SHARE: z.coerce.number({ error: 'a fraction' }).gt(0, '> 0').max(1, '<= 1').default(0.02),
  /** Chain seconds between two daily structure scans of a watched token (chain clock: block timestamps). */
  STRUCTURE_DAILY_SCAN_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a number of seconds').min(1, '>= 1').default(86_400),
  /** How often the scans role looks for watched tokens whose daily scan is due (ms; 0: never). */
  STRUCTURE_DAILY_CHECK_MS: nonNegInt(60_000),
  /** Longest time a client may take to send a whole request, headers and body (ms); past it the connection is answered 408 and closed. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(100, '>= 100').max(600_000, '<= 600000').default(10_000),
  /** Longest silence on a connection (ms), either way, before it is closed: bounds a request's whole exchange. */
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(1_000, '>= 1000').max(3_600_000, '<= 3600000').default(60_000),
  /**
   * The longest a feed's long poll (`wait`) holds a request, whatever it asks (seconds, at most the
   * contract's 30): lower it behind a proxy that closes quieter connections sooner.
   */
  LONG_POLL_HOLD_SECONDS: z.coerce.number({ error: 'seconds' }).int('seconds').min(0, '>= 0').max(30, '<= 30').default(30),
  /** How long an idle keep-alive connection is kept open between requests (ms). */
  HTTP_KEEPALIVE_TIMEOUT_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(100, '>= 100').max(600_000, '<= 600000').default(5_000),
  /** Open connections the API accepts in total; past it a new one is answered 503 with Retry-After and closed. */
  HTTP_MAX_CONNECTIONS: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(1_000_000, '<= 1000000').default(4_000),
  /** Open connections per client address (not applied when TRUST_PROXY is set: the proxy's address would be counted). */
  HTTP_MAX_CONNECTIONS_PER_IP: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(1_000_000, '<= 1000000').default(64),
  /** Requests with a large body (above a JSON route's limit: /identify, the SQL doors, /mcp) read at once, in total; each may buffer up to 8 MiB. */
  HTTP_LARGE_BODIES_MAX: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(10_000, '<= 10000').default(8),
  /** Requests with a large body read at once per client address. */
  HTTP_LARGE_BODIES_PER_IP: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(10_000, '<= 10000').default(2),
  /** Largest image POST /identify reads, in pixels (width × height from the image's header). */
  IDENTIFY_MAX_PIXELS: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').default(25_000_000),
  /** Scan jobs requested by callers that may be queued or running at once; past it POST /structure|/forensics answers 503 with Retry-After. */
  SCAN_QUEUE_MAX: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').max(1_000_000, '<= 1000000').default(200),
  /** Scan requests (POST /structure/{token} and /forensics/{token} together) per client address per minute. */
  SCAN_REQUESTS_PER_MINUTE_PER_IP: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').default(10),
  /** Scan requests per presented key per minute, whichever addresses it comes from. */
  SCAN_REQUESTS_PER_MINUTE_PER_KEY: z.coerce.number({ error: 'an integer' }).int('an integer').min(1, '>= 1').default(30),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'a redis:// URL').optional(),
  /** Longest wait for one Redis command; past it (or at once while disconnected) the store is unavailable. */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(10, '>= 10').max(60_000, '<= 60000').default(500),

  CHAIN_4663_RPC_URL: optionalUrl,
  CHAIN_4663_START_BLOCK: nonNegInt(0),
  CHAIN_4663_CONFIRMATIONS: nonNegInt(3),
  /** Milliseconds between head polls of a chain RPC source when it is caught up. */
  CHAIN_POLL_MS: z.coerce.number({ error: 'milliseconds' }).int('milliseconds').min(50, '>= 50').default(1000),
  CHAIN_5042_RPC_URL: optionalUrl,
  CHAIN_5042_START_BLOCK: nonNegInt(0),
  CHAIN_5042_CONFIRMATIONS: nonNegInt(3),
  /**
   * The chain-5042 processor batches by time: after a batch that did not fill it waits this
   * long, so its live blocks go in a few at a time (its answers state the block they are
   * measured through); in `svc start` about this often, each batch started just after one of
   * chain 4663's (bin/svc.ts arcPacing); 0: a batch per block, as chain 4663.
   */
  CHAIN_5042_FLUSH_MS: z.coerce.number({ error: 'an integer' }).int('an integer').min(0, '>= 0').max(30_000, '<= 30000').default(4000),
  CHAIN_4663_WETH: addressList.optional(),
  CHAIN_4663_V2_FACTORIES: addressList.optional(),
  CHAIN_4663_V3_FACTORIES: addressList.optional(),
  CHAIN_4663_V4_POOL_MANAGER: addressList.optional(),
  CHAIN_5042_LAUNCHPADS: addressList.optional(),
  CHAIN_5042_FACTORIES: addressList.optional(),

  SIMULATOR: z.enum(['on', 'off'], { error: 'on or off' }).optional(),
  SIMULATOR_SEED: z.coerce.number({ error: 'an integer' }).int('an integer').default(4663),
  /** Seconds between simulated blocks in live mode. */
  SIMULATOR_BLOCK_SECONDS: z.coerce.number({ error: 'a number of seconds' }).positive('> 0').default(2),
  /** Hours of history a new simulated world starts with (generated and ingested as fast as possible, then live). */
  SIMULATOR_BACKFILL_HOURS: z.coerce.number({ error: 'a number of hours' }).nonnegative('>= 0').max(24 * 365, '<= 8760').default(24),
  /** The same history as a block count; when set it wins over SIMULATOR_BACKFILL_HOURS. */
  SIMULATOR_BACKFILL_BLOCKS: z.coerce.number({ error: 'an integer' }).int('an integer').nonnegative('>= 0').optional(),
  /** Trades per second (wall time) the simulated Solana venue publishes at most; 0: no Solana venue. */
  SOLANA_SIM_TRADES_PER_SECOND: z.coerce.number({ error: 'a number of trades per second' }).nonnegative('>= 0').max(100_000, '<= 100000').default(2_000),

  SVC_ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  X402_PAY_TO: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x address').optional(),
  X402_FACILITATOR_URL: optionalUrl,
  X402_NETWORK_RPC_URL: optionalUrl,
  X402_ASSET: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x address').transform((s) => s.toLowerCase()).optional(),
  /** The local facilitator's settling account on a real network; without it, the node's first account. */
  X402_FACILITATOR_PRIVATE_KEY: privateKey,
  /** `svc start`'s local payments chain: on unless X402_FACILITATOR_URL or X402_NETWORK_RPC_URL is set. */
  X402_LOCAL_CHAIN: z.enum(['on', 'off'], { error: 'on or off' }).optional(),
  /** The wallet `svc pay` pays from; without it, a development wallet kept in DATA_DIR. */
  X402_PAYER_PRIVATE_KEY: privateKey,
})

/** Variables whose values are never echoed, not even in a configuration error. */
const SECRET_VARIABLES = new Set(['SVC_ADMIN_TOKEN', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_ANALYST_PASSWORD', 'X402_FACILITATOR_PRIVATE_KEY', 'X402_PAYER_PRIVATE_KEY'])

type Env = z.infer<typeof EnvSchema>

export type Config = Readonly<
  Env & {
    /** Chain 4663 is simulated: it has no RPC URL and SIMULATOR is not off. */
    simulatorOn: boolean
    /** Chain 5042 is simulated: it has no RPC URL and SIMULATOR is not off. */
    simulator5042On: boolean
    /** Blocks of history a new simulated world starts with: SIMULATOR_BACKFILL_BLOCKS, else the hours at the block interval. */
    simulatorBackfillBlocks: number
    /** X402_LOCAL_CHAIN resolved: on unless a facilitator URL or payments RPC URL is set. */
    localPaymentsChainOn: boolean
    mode: { clickhouse: 'chdb' | 'server'; bus: 'memory' | 'kafka'; store: 'memory' | 'redis' }
  }
>

/** A configuration problem, carrying the one line the process prints before it stops. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Parse the environment; throws ConfigError whose message names the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, the way shells and .env files usually mean them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = EnvSchema.safeParse(cleaned)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const name = String(issue.path[0] ?? 'environment')
    const got = SECRET_VARIABLES.has(name) ? '<hidden>' : JSON.stringify(cleaned[name] ?? '')
    throw new ConfigError(`invalid ${name}=${got}: expected ${issue.message}`)
  }
  const e = parsed.data
  // Each chain without an RPC URL is simulated, unless SIMULATOR=off.
  const simulated = (rpcUrl: string | undefined) => e.SIMULATOR !== 'off' && !rpcUrl
  return Object.freeze({
    ...e,
    simulatorOn: simulated(e.CHAIN_4663_RPC_URL),
    simulator5042On: simulated(e.CHAIN_5042_RPC_URL),
    simulatorBackfillBlocks: e.SIMULATOR_BACKFILL_BLOCKS ?? Math.ceil((e.SIMULATOR_BACKFILL_HOURS * 3600) / e.SIMULATOR_BLOCK_SECONDS),
    localPaymentsChainOn: e.X402_LOCAL_CHAIN ? e.X402_LOCAL_CHAIN === 'on' : !(e.X402_FACILITATOR_URL || e.X402_NETWORK_RPC_URL),
    mode: Object.freeze({
      clickhouse: e.CLICKHOUSE_URL ? 'server' : 'chdb',
      bus: e.KAFKA_BROKERS ? 'kafka' : 'memory',
      store: e.REDIS_URL ? 'redis' : 'memory',
    } as const),
  })
}
