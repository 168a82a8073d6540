import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { embeddedIPv4 } from '../../core/embedded-ipv4.ts'

/**
 * Where a webhook may point (DESIGN §8): https only, and every address its host resolves to
 * must be public. Refused: private (RFC 1918, IPv6 ULA), loopback, link-local, CGNAT,
 * multicast, unspecified and other reserved ranges. An IPv6 address that embeds an IPv4 one
 * (mapped, translated, compatible, NAT64, 6to4, Teredo: see embedded-ipv4.ts) is judged as that
 * IPv4 address too. The same check runs at registration and again at each delivery attempt, on
 * the addresses the host resolves to then, and the delivery connects to exactly those (DNS
 * rebinding). `allowLoopback` (tests only) admits 127.0.0.0/8 and ::1; it is set by
 * WEBHOOK_ALLOW_LOOPBACK=on or an option of the API server.
 */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

export interface UrlPolicy {
  allowLoopback: boolean
  /** DNS resolution (all addresses); injectable for tests. */
  lookup?: (host: string) => Promise<ResolvedAddress[]>
}

/** Why a URL was refused; `reason` is a stable snake_case word for the error details. */
export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError'
  constructor(
    readonly reason: 'not_https' | 'malformed' | 'credentials_in_url' | 'unresolvable' | 'blocked_address',
    message: string,
    readonly address?: string,
  ) {
    super(message)
  }
}

/** The loopback setting from the environment: only the exact value `on` enables it. */
export const loopbackAllowedByEnv = () => process.env.WEBHOOK_ALLOW_LOOPBACK === 'on'

const blocked = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8], // unspecified / this network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['169.254.0.0', 16], // link-local
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) blocked.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): the operator decides where the IPv4 address sits
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (private)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) blocked.addSubnet(net, bits, 'ipv6')

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** Why an address may not receive webhooks, or null when it may. */
export function addressProblem(address: string, allowLoopback: boolean): string | null {
  const family = isIP(address)
  if (!family) return 'not an IP address'
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (loopback.check(address, type)) return allowLoopback ? null : 'loopback address'
  if (blocked.check(address, type)) return 'private, link-local, CGNAT, multicast, unspecified or reserved address'
  // Judged as the IPv4 address it carries or reaches (::1 and :: are settled above as IPv6).
  for (const { form, ipv4 } of embeddedIPv4(address)) {
    const problem = addressProblem(ipv4, allowLoopback)
    if (problem) return `${form} form of ${ipv4}, a ${problem}`
  }
  return null
}

async function systemLookup(host: string): Promise<ResolvedAddress[]> {
  const all = await dnsLookup(host, { all: true, verbatim: true })
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

/**
 * Check a webhook URL and resolve its host; every resolved address must pass. Returns the
 * addresses so a delivery connects to exactly those (no second resolution to rebind).
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<{ url: URL; addresses: ResolvedAddress[] }> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new WebhookUrlError('malformed', 'The webhook url is not a valid URL.')
  }
  if (url.protocol !== 'https:') throw new WebhookUrlError('not_https', 'The webhook url must use https.')
  if (url.username || url.password) throw new WebhookUrlError('credentials_in_url', 'The webhook url must not carry credentials.')
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (!host) throw new WebhookUrlError('malformed', 'The webhook url has no host.')
  let addresses: ResolvedAddress[]
  const literal = isIP(host)
  if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  else {
    try {
      addresses = await (policy.lookup ?? systemLookup)(host)
    } catch {
      addresses = []
    }
    if (!addresses.length) throw new WebhookUrlError('unresolvable', `The webhook host ${host} does not resolve.`)
  }
  for (const a of addresses) {
    const problem = addressProblem(a.address, policy.allowLoopback)
    if (problem) throw new WebhookUrlError('blocked_address', `The webhook host ${host} resolves to ${a.address}: ${problem}.`, a.address)
  }
  return { url, addresses }
}
