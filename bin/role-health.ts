import { createServer, type Server } from 'node:http'
import type { Runtime } from './runtime.ts'

/**
 * GET /health and GET /metrics for the roles without an API (`pipeline <name>`, `sim`), on
 * HEALTH_PORT: what a Kubernetes probe and a Prometheus scrape need. /health answers 200 when
 * ClickHouse and the bus answer within 2 s, 503 naming what does not; 200 with status
 * `degraded` and the faults while a consumer or source is retrying an infrastructure fault.
 */
export async function startRoleHealth(rt: Runtime, role: string): Promise<Server | undefined> {
  const port = rt.config.HEALTH_PORT
  if (port === undefined) return undefined
  const checks: Record<string, () => Promise<unknown>> = {
    clickhouse: async () => (await rt.ch.query({ query: 'SELECT 1', format: 'JSONEachRow' })).json(),
    bus: () => rt.bus.ping(),
  }
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET' && req.url === '/metrics') {
        const text = await rt.metrics.render()
        res.writeHead(200, { 'content-type': rt.metrics.contentType }).end(text)
      } else if (req.method === 'GET' && req.url === '/health') {
        const down: Record<string, string> = {}
        await Promise.all(
          Object.entries(checks).map(async ([name, check]) => {
            try {
              await Promise.race([check(), new Promise((_, rej) => setTimeout(() => rej(new Error('timed out after 2 s')), 2000).unref())])
            } catch (err) {
              down[name] = err instanceof Error ? err.message : String(err)
            }
          }),
        )
        const ok = Object.keys(down).length === 0
        // A consumer or source retrying an infrastructure fault: still ready, but degraded, naming it.
        const faults = rt.metrics.infraFaults.active()
        const up = faults.length ? { status: 'degraded', role, faults } : { status: 'ok', role }
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        res.end(JSON.stringify(ok ? up : { error: { code: 'dependency_unavailable', message: `Not ready: ${Object.keys(down).join(', ')}.`, details: down } }))
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'GET /health or GET /metrics', details: {} } }))
      }
    })().catch((err: unknown) => {
      rt.logger.error({ err }, 'health listener failed')
      if (!res.headersSent) res.writeHead(500).end()
    })
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, rt.config.HOST, () => resolve()))
  rt.logger.info({ port, role }, 'health and metrics listening')
  return server
}
