import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, http, HttpRequestError, TimeoutError, type PublicClient, type Transport } from 'viem'
import { jsonRpcTransport } from '../../api/access/x402/json-rpc-transport.ts'
import { startPaymentsChain, type PaymentsChain } from '../../infra/payments-chain/chain.ts'
import { freePort } from '../setup/svc-process.ts'

/**
 * The local facilitator's JSON-RPC transport: against a real node it answers what viem's `http`
 * transport answers and fails with the same errors; against a server misbehaving on purpose it
 * fails fast with viem's own HTTP and timeout errors; it keeps its connections open.
 */

const OPTIONS = { timeoutMs: 2_000, maxResponseBytes: 64 * 1024 }
const clientOn = (transport: Transport) => createPublicClient({ transport, cacheTime: 0 }) as PublicClient

/** What a call ends in, comparable across transports: its value, or its error's class and message. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() }
  } catch (error) {
    const e = error as Error & { shortMessage?: string; details?: string; code?: number }
    return { error: e.constructor.name, shortMessage: e.shortMessage, details: e.details, code: e.code }
  }
}

describe('JSON-RPC over node:http against a hardhat node', () => {
  let chain: PaymentsChain
  beforeAll(async () => {
    chain = await startPaymentsChain({ fund: [1] })
  }, 120_000)
  afterAll(async () => {
    await chain?.stop()
  })

  it("gives the same answers and the same errors as viem's http transport", { timeout: 60_000 }, async () => {
    const ours = clientOn(jsonRpcTransport(chain.node.rpcUrl, OPTIONS))
    const viems = clientOn(http(chain.node.rpcUrl, { retryCount: 0 }))
    const holder = chain.signer(1).address
    const calls: Array<(c: PublicClient) => Promise<unknown>> = [
      (c) => c.getChainId(),
      (c) => c.readContract({ address: chain.usdc, abi: chain.usdcAbi, functionName: 'balanceOf', args: [holder] }),
      // A call the token reverts: a transfer from an account with nothing to send.
      (c) => c.simulateContract({ address: chain.usdc, abi: chain.usdcAbi, functionName: 'transfer', args: [holder, 10n ** 30n], account: chain.signer(7).address }),
      // A method the node does not have: a JSON-RPC error, mapped by its code.
      (c) => c.request({ method: 'eth_noSuchMethod' } as never),
    ]
    const seen: unknown[] = []
    for (const call of calls) {
      const a = await outcome(() => call(ours))
      expect(a).toEqual(await outcome(() => call(viems)))
      seen.push(a)
    }
    // The comparison covered answers and failures alike.
    expect(seen.filter((s) => 'value' in (s as object))).toHaveLength(2)
    expect(seen.filter((s) => 'error' in (s as object))).toHaveLength(2)
  })
})

describe('JSON-RPC over node:http against a server that misbehaves', () => {
  let server: Server
  let url = ''
  let connections = 0
  let mode: 'ok' | 'status' | 'not-json' | 'huge' | 'silent' | 'cut' = 'ok'
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        if (mode === 'silent') return
        // Half an answer, then the connection is gone.
        if (mode === 'cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 })
          res.write('{"jsonrpc":"2.0","id":1,')
          return void setTimeout(() => res.socket?.destroy(), 20)
        }
        if (mode === 'status') return void res.writeHead(502).end('bad gateway')
        if (mode === 'not-json') return void res.writeHead(200).end('<html>')
        if (mode === 'huge') return void res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: 'x'.repeat(OPTIONS.maxResponseBytes) }))
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x2105' }))
      })
    })
    server.on('connection', () => connections++)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })

  const ask = (transport: Transport) => clientOn(transport).request({ method: 'eth_chainId' } as never)

  it('keeps one connection open across requests made one after another', async () => {
    mode = 'ok'
    const transport = jsonRpcTransport(url, OPTIONS)
    const before = connections
    for (let i = 0; i < 20; i++) expect(await ask(transport)).toBe('0x2105')
    expect(connections - before).toBe(1)
  })

  it('fails a status other than 200, a body that is not JSON and an answer over the size bound with HttpRequestError', async () => {
    const transport = jsonRpcTransport(url, OPTIONS)
    mode = 'status'
    await expect(ask(transport)).rejects.toSatisfy((e: unknown) => e instanceof HttpRequestError && e.status === 502 && /bad gateway/.test(e.details))
    mode = 'not-json'
    await expect(ask(transport)).rejects.toSatisfy((e: unknown) => e instanceof HttpRequestError && /not JSON/.test(e.details))
    mode = 'huge'
    await expect(ask(transport)).rejects.toSatisfy((e: unknown) => e instanceof HttpRequestError && /larger than 65536 bytes/.test(e.details))
    // and serves again once the server does
    mode = 'ok'
    expect(await ask(transport)).toBe('0x2105')
  })

  it('fails a request the server never answers with TimeoutError, within its timeout', async () => {
    mode = 'silent'
    const started = Date.now()
    await expect(ask(jsonRpcTransport(url, { ...OPTIONS, timeoutMs: 300 }))).rejects.toBeInstanceOf(TimeoutError)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('fails an answer cut off by a lost connection with HttpRequestError, at once', async () => {
    mode = 'cut'
    const started = Date.now()
    await expect(ask(jsonRpcTransport(url, OPTIONS))).rejects.toSatisfy((e: unknown) => e instanceof HttpRequestError && /cut off|aborted/.test(e.details))
    expect(Date.now() - started).toBeLessThan(OPTIONS.timeoutMs)
  })

  it('fails a node that is not there with HttpRequestError, at once', async () => {
    await expect(ask(jsonRpcTransport(`http://127.0.0.1:${await freePort()}`, OPTIONS))).rejects.toSatisfy((e: unknown) => e instanceof HttpRequestError && /ECONNREFUSED/.test(e.details))
  })

  it('refuses a URL that is not http or https', () => {
    expect(() => jsonRpcTransport('ws://127.0.0.1:1', OPTIONS)).toThrow(/http or https/)
  })
})
