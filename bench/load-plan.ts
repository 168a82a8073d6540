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
}

/** What the load driver runs against one base URL. */
export interface LoadPlan {
  base: string
  /** The bare HTTP server answering the same bytes as `bareOf`'s first path. */
  bareBase: string
  seconds: number
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
  errors: number
}

/** What the driver prints: the bare server alone, each keyed class's first asks, each class alone, then all at once. */
export interface LoadReport {
  bare: ClassFigures
  /** Each key of a keyed class asked once, before the class runs alone (null for unkeyed classes). */
  first: Array<ClassFigures | null>
  alone: ClassFigures[]
  mix: ClassFigures[]
}
