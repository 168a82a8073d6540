import { createHmac, timingSafeEqual } from 'node:crypto'

/** The X-Svc-Signature value: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function signatureHeader(secret: string, body: string, t: number): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`
}

/** Verify a signature header against the raw body (what a receiver does); `toleranceS` bounds its age. */
export function verifySignature(secret: string, body: string, header: string, nowS: number, toleranceS = 300): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
  if (!m) return false
  const t = Number(m[1])
  if (Math.abs(nowS - t) > toleranceS) return false
  const expected = Buffer.from(signatureHeader(secret, body, t).split('v1=')[1]!, 'hex')
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'))
}
