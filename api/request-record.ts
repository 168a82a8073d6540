import type { ApiDeps } from '../core/endpoint/deps.ts'

/**
 * One answered request in the request metrics and, at level info, the request log: what the
 * app's onResponse hook records for Fastify's answers and the kept lane (./kept-lane.ts) for its own.
 */
export function recordRequest(deps: Pick<ApiDeps, 'metrics' | 'logger'>, method: string, route: string, status: number, ms: number, lane = false): void {
  deps.metrics.httpRequests.record(route, status, ms / 1000, lane)
  // (Its fields are not even gathered unless the line is written: this runs on every request.)
  if (deps.logger.isLevelEnabled('info')) deps.logger.info({ method, route, status, ms: Math.round(ms * 10) / 10 }, 'request')
}
