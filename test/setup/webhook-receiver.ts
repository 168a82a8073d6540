import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { tempDir } from './temp.ts'

/** One POST the receiver got. */
export interface ReceivedDelivery {
  path: string
  /** Arrival time, ms since the epoch. */
  at: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * An HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate, for the alert tests:
 * the delivery worker trusts it through its `ca` option, a `svc` process through
 * NODE_EXTRA_CA_CERTS=certPath. It records every request and answers scripted statuses.
 */
export interface WebhookReceiver {
  /** `https://127.0.0.1:<port>` */
  base: string
  /** The certificate (PEM) and its file. */
  cert: string
  certPath: string
  /** Everything received, in order (tests may empty it). */
  received: ReceivedDelivery[]
  /** Answer these statuses to requests on `path`, in order; 200 once they run out. */
  script(path: string, statuses: number[]): void
  /** What arrived on `path`. */
  to(path: string): ReceivedDelivery[]
  close(): Promise<void>
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = tempDir('svc-webhook-cert-')
  const keyPath = join(dir.path, 'key.pem')
  const certPath = join(dir.path, 'cert.pem')
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' })
  const cert = readFileSync(certPath, 'utf8')
  const received: ReceivedDelivery[] = []
  const scripts = new Map<string, number[]>()
  const server = createServer({ key: readFileSync(keyPath), cert }, (req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => (body += c))
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://receiver').pathname
      received.push({ path, at: Date.now(), headers: req.headers, body })
      res.statusCode = scripts.get(path)?.shift() ?? 200
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cert,
    certPath,
    received,
    script: (path, statuses) => void scripts.set(path, [...statuses]),
    to: (path) => received.filter((r) => r.path === path),
    async close() {
      await new Promise((r) => server.close(r))
      dir.cleanup()
    },
  }
}
