import { isIPv6 } from 'node:net'

/**
 * The IPv4 addresses an IPv6 address reaches or carries, by the standard forms that embed one.
 * A webhook target in one of these forms is judged as the IPv4 address: `[::ffff:a00:1]` is
 * 10.0.0.1 however it is written.
 */
export interface EmbeddedIPv4 {
  form: 'ipv4-mapped' | 'ipv4-translated' | 'ipv4-compatible' | 'nat64' | '6to4' | 'teredo-client' | 'teredo-server'
  ipv4: string
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tail and `::` expanded), or null. */
export function ipv6Groups(address: string): number[] | null {
  if (!isIPv6(address) || address.includes('%')) return null
  let text = address.toLowerCase()
  // A dotted IPv4 tail is two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.split('::') as [string, string | undefined]
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const left = part(head)
  const right = part(tail)
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

/**
 * Every IPv4 address embedded in `address` (empty for an IPv4 address or a plain IPv6 one):
 * - IPv4-mapped `::ffff:a.b.c.d` (::ffff:0:0/96) and IPv4-translated `::ffff:0:a.b.c.d` (SIIT);
 * - IPv4-compatible `::a.b.c.d` (::/96, deprecated; `::` and `::1` are judged as IPv6 first);
 * - NAT64 `64:ff9b::a.b.c.d` (the well-known /96, RFC 6052). The local-use NAT64 prefix
 *   `64:ff9b:1::/48` (RFC 8215) is not read here: where it carries the IPv4 address is the local
 *   operator's choice, so the URL policy refuses it whole;
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056): AA.BB.CC.DD;
 * - Teredo `2001:0::/32` (RFC 4380): the server IPv4 (bits 32-63) and the client's public IPv4
 *   (the last 32 bits, XOR 0xffffffff).
 */
export function embeddedIPv4(address: string): EmbeddedIPv4[] {
  const g = ipv6Groups(address)
  if (!g) return []
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return [{ form: 'ipv4-mapped', ipv4: quad(g[6]!, g[7]!) }]
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [{ form: 'ipv4-translated', ipv4: quad(g[6]!, g[7]!) }]
  if (zeros(0, 6)) return [{ form: 'ipv4-compatible', ipv4: quad(g[6]!, g[7]!) }]
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [{ form: 'nat64', ipv4: quad(g[6]!, g[7]!) }]
  if (g[0] === 0x2002) return [{ form: '6to4', ipv4: quad(g[1]!, g[2]!) }]
  if (g[0] === 0x2001 && g[1] === 0) {
    return [
      { form: 'teredo-server', ipv4: quad(g[2]!, g[3]!) },
      { form: 'teredo-client', ipv4: quad(g[6]! ^ 0xffff, g[7]! ^ 0xffff) },
    ]
  }
  return []
}
