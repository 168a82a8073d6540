/** One class of callers in the load bench: what it calls, with how many connections. */
export interface LoadClass {
  name: string
  /** What the class does, for the printed line. */
  what: string
  connections: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  /** Paths called in turn (one per request), or a feed followed by its cursor. */
  paths?: string[]
  /** A feed polled from its head: `path?limit=N`, then `&since=<next_since>` per connection. */
  follow?: { path: string; cursorField: 'next_since' }
  /** JSON-RPC MCP tool calls: the tool and the argument lists called in turn. */
  mcp?: { tool: string; args: Array<Record<string, unknown>> }
  /**
   * Paid per call over x402, no key: `calls` authorizations signed by the driver (the official
   * client, from `privateKey`'s account, funded beforehand) just before each run, one per call
   * (a payment is spent once), for `paths[0]`. The run ends when they are spent. Its warm-up
   * (with the plan's): `warmCalls` calls first, their figures dropped.
   */
  x402?: { privateKey: `0x${string}`; asset: string; calls: number; warmCalls: number }
}

/** What the load driver runs against one base URL. */
export interface LoadPlan {
  base: string
  /** A bare HTTP server answering the bytes of the first class's first path to every request. */
  bareBase: string
  seconds: number
  /**
   * Seconds each run is driven first, its figures discarded (the bare server and every class
   * alone): the measured seconds are the server's steady state, not its JIT warming up.
   */
  warmSeconds: number
  classes: LoadClass[]
}

export interface ClassFigures {
  name: string
  rps: number
  p50: number
  p99: number
  p999: number
  requests: number
  non2xx: number
  /** Responses by status other than 2xx (what the non-2xx were). */
  statuses: Record<string, number>
  errors: number
}

/** What the driver prints: the bare server (twice), each keyed class's first asks, each class alone, then all at once. */
export interface LoadReport {
  /** The bare server driven as the first class is (same paths, headers, connections): the baseline. */
  bare: ClassFigures
  /** The bare server driven with one fixed request: what the driver alone reaches. */
  bareFixed: ClassFigures
  /** Each key of a keyed class asked once, before the class runs alone (null for unkeyed classes). */
  first: Array<ClassFigures | null>
  alone: ClassFigures[]
  mix: ClassFigures[]
  /** The API's engine statements while all classes ran at once, by path (what still reaches the engine). */
  mixEngine: string
  /**
   * The facilitator's own time per paid call (svc_x402_facilitator_duration_seconds, by step)
   * while the x402 class ran alone and while all ran at once: what of a paid call's time is the
   * worker and the payments chain, the rest being the API's thread and the driver.
   */
  facilitator: { alone: string; mix: string }
}
