import http from 'node:http'
import https from 'node:https'
import { custom, HttpRequestError, RpcRequestError, TimeoutError, type Transport } from 'viem'

/** Connections kept open to the node: the facilitator has at most a few requests in flight. */
const MAX_SOCKETS = 16

export interface JsonRpcTransportOptions {
  /** A request not answered whole within this fails with viem's TimeoutError. */
  timeoutMs: number
  /** An answer larger than this fails (the node is not ours to trust with our memory). */
  maxResponseBytes: number
}

interface JsonRpcAnswer {
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

/**
 * A viem transport posting JSON-RPC over node:http(s) on kept-alive connections, in place of
 * viem's `http` transport. That one goes through fetch (undici: web streams, an abort signal
 * and a timer per request); the local facilitator makes three requests a paid call, and with
 * fetch they took 2 ms of its 7.7 ms of CPU a call (scratch probe: 1,200 calls one at a time,
 * two runs each way; four at a time, 155 against 205 calls a second). Failures are viem's own
 * errors, as the `http` transport raises them (RpcRequestError for a JSON-RPC error, mapped by
 * code above the transport; HttpRequestError for a status other than 200, an unreadable body or
 * a connection that fails; TimeoutError), so the SDK and viem see what they saw before. One
 * request per call: no batching, no retries (a facilitator call that fails is answered as one).
 */
export function jsonRpcTransport(url: string, opts: JsonRpcTransportOptions): Transport {
  const target = new URL(url)
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`a JSON-RPC URL must be http or https, not ${target.protocol}`)
  const client = target.protocol === 'https:' ? https : http
  const agent = new client.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS })
  let nextId = 0

  function post(body: { jsonrpc: '2.0'; id: number; method: string; params: unknown }): Promise<JsonRpcAnswer> {
    const text = JSON.stringify(body)
    return new Promise((resolve, reject) => {
      const failed = (details: string, cause?: Error, status?: number) => new HttpRequestError({ url, body, details, cause, status })
      const req = client.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > opts.maxResponseBytes) req.destroy(failed(`the answer is larger than ${opts.maxResponseBytes} bytes`))
          else chunks.push(chunk)
        })
        // Once the answer has begun, a failure (the connection lost, the timer, the size bound) is
        // the response's error, not the request's: without this the call never settled.
        res.on('error', (err) => {
          clearTimeout(timer)
          reject(failed(`the answer was cut off: ${err.message}`, err))
        })
        res.on('end', () => {
          clearTimeout(timer)
          const answer = Buffer.concat(chunks).toString('utf8')
          if (res.statusCode !== 200) return reject(failed(answer.slice(0, 500) || res.statusMessage || 'no body', undefined, res.statusCode))
          try {
            resolve(JSON.parse(answer) as JsonRpcAnswer)
          } catch {
            reject(failed(`the answer is not JSON: ${answer.slice(0, 200)}`))
          }
        })
      })
      const timer = setTimeout(() => req.destroy(new TimeoutError({ body, url })), opts.timeoutMs)
      req.on('error', (err) => {
        clearTimeout(timer)
        reject(err instanceof TimeoutError || err instanceof HttpRequestError ? err : failed(err.message, err))
      })
      req.end(text)
    })
  }

  return custom(
    {
      async request({ method, params }: { method: string; params?: unknown }) {
        const body = { jsonrpc: '2.0' as const, id: ++nextId, method, params }
        const { result, error } = await post(body)
        if (error) throw new RpcRequestError({ body, error, url })
        return result
      },
    },
    { key: 'json-rpc', name: 'JSON-RPC over node:http', retryCount: 0 },
  )
}
