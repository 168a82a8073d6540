import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * Every engine statement is counted under the consumer and step that sent it (issue 23: count,
 * then collapse): the chain batch's insert, its real-token refresh and each part of its serving
 * refresh, the social writers, and API reads as `other`.
 */
let env: Embedded

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '50' })
  await env.ingestThrough(300)
}, 180_000)
afterAll(async () => env?.close())

/** svc_engine_<what>_total samples by consumer and step. */
async function samples(what: 'statements' | 'seconds'): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  for (const line of (await env.rt.metrics.render()).split('\n')) {
    const m = new RegExp(`^svc_engine_${what}_total\\{consumer="([^"]*)",step="([^"]*)"\\} (\\S+)$`).exec(line)
    if (m) out.set(`${m[1]} ${m[2]}`, Number(m[3]))
  }
  return out
}

describe('engine statements by consumer and step', () => {
  it("names each part of a chain batch, the social writers and the API's reads", async () => {
    await env.api.app.inject({ method: 'GET', url: '/stats' })
    const statements = await samples('statements')
    const seconds = await samples('seconds')
    // A raw insert's step names its table.
    for (const step of ['chain-writer/insert/swaps', 'chain-writer/insert/erc20_transfers', 'chain-writer/insert/chain_blocks', 'chain-writer/refresh', 'chain-writer/refresh/token_state', 'chain-writer/refresh/fifo']) {
      expect(statements.get(`chain-4663 ${step}`), step).toBeGreaterThan(0)
      expect(seconds.get(`chain-4663 ${step}`), step).toBeGreaterThan(0)
    }
    expect(statements.get('social-posts mentions-writer/mentions')).toBeGreaterThan(0)
    expect([...statements.keys()].some((k) => k.startsWith('other '))).toBe(true)
    // Each batch inserts each of its tables once.
    const batches = await env.rt.metrics.batches.get({ consumer: 'chain-4663', outcome: 'ok' })
    expect(batches).toBeGreaterThan(0)
    const inserts = [...statements].filter(([k]) => k.startsWith('chain-4663 chain-writer/insert/'))
    expect(inserts.length).toBeGreaterThan(3)
    for (const [k, n] of inserts) expect(n, k).toBeLessThanOrEqual(batches)
  })
})
