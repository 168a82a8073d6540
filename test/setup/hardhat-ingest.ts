import { expect } from 'vitest'
import type { HardhatNode } from '../../infra/hardhat/node.ts'

/**
 * What the end-to-end chain tests (chain 4663 and 5042 on hardhat) share: waiting until the
 * service has ingested the node's head, and a GET through the API that must answer 200.
 */

/** Waits until `processor` has ingested the node's head (at most 60 s); answers that block. */
export async function ingestedHead(node: HardhatNode, processor: { watermark(): number }): Promise<number> {
  const head = Number(await node.client.getBlockNumber())
  const deadline = Date.now() + 60_000
  while (processor.watermark() < head) {
    if (Date.now() > deadline) throw new Error(`ingest stuck at ${processor.watermark()}, head ${head}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return head
}

type Inject = (opts: { method: 'GET'; url: string; headers: Record<string, string> }) => PromiseLike<{ statusCode: number; body: string; json(): any }>

/** GET `url` through the app with `headers`; expects 200 and answers the JSON body. */
export async function getOk(app: { inject: Inject }, url: string, headers: Record<string, string>): Promise<any> {
  const res = await app.inject({ method: 'GET', url, headers })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
