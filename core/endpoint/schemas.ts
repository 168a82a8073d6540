import { z } from 'zod'
import { isoToMicros } from '../serving/cursor.ts'

/**
 * Parameter schemas shared by endpoints. Parsing normalizes: addresses are accepted in any
 * case and answered lowercase; handles with or without a leading @.
 */
export const ADDRESS_MESSAGE = 'expected a 0x address of 40 hex characters'

export const Address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, ADDRESS_MESSAGE)
  .transform((s) => s.toLowerCase())
  .meta({ description: 'EVM address: 0x followed by 40 hex characters, any case', example: '0x' + 'ab'.repeat(20) })

export const SolanaAddress = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address of 32 to 44 characters')
  .meta({ description: 'Solana wallet address (base58)' })

export const Handle = z
  .string()
  .regex(/^@?[A-Za-z0-9_]{1,30}$/, 'expected a handle of 1 to 30 letters, digits or _ with an optional @')
  .transform((s) => s.replace(/^@/, '').toLowerCase())
  .meta({ description: 'Social-network handle, with or without a leading @' })

/** A list limit: 1..max, default 50 (DESIGN §7: feed and stream limit default 50, max 200). */
export const Limit = (max = 200, def = 50) =>
  z.coerce.number().int(`expected an integer from 1 to ${max}`).min(1, `expected an integer from 1 to ${max}`).max(max, `expected an integer from 1 to ${max}`).default(def)

/** The longest a feed request may wait at the head for its next item (a long poll). */
export const MAX_WAIT_SECONDS = 30

/** A feed's long poll: with a cursor at the head, hold the request until the next item is served. */
export const LongPollWait = z.coerce
  .number()
  .int(`expected an integer from 0 to ${MAX_WAIT_SECONDS}`)
  .min(0, `expected an integer from 0 to ${MAX_WAIT_SECONDS}`)
  .max(MAX_WAIT_SECONDS, `expected an integer from 0 to ${MAX_WAIT_SECONDS}`)
  .meta({
    description: `Long poll: when the page after \`since\` is empty, hold the request up to this many seconds (at most ${MAX_WAIT_SECONDS}, or less where the operator set LONG_POLL_HOLD_SECONDS lower) and answer the moment the next item is served; an empty page when none came. Counted and priced as one call.`,
  })

export const IsoCursor = z
  .string()
  .max(40, 'expected an ISO 8601 timestamp')
  .refine((s) => isoToMicros(s) !== null, 'expected an ISO 8601 timestamp such as 2026-01-01T00:00:00.000000Z')
  .meta({ description: 'RFC 3339 date-time cursor from a prior call (e.g. 2026-01-01T00:00:00.000000Z)', format: 'date-time', example: '2026-01-01T00:00:00.000000Z' })

/** A host name or an IPv4 literal as it may appear in a URL we accept (no IP-looking names, no IPv6). */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
/** A port, 1 to 65535. */
const PORT = '(?::(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5]))?'
const HOST = `(?:(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*|${OCTET}(?:\\.${OCTET}){3})${PORT}`
/** Path and query in RFC 3986 characters (what `format: uri` admits), percent-escapes well formed. */
const PATH = "(?:[/?](?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?"

/**
 * An https URL (a webhook target). Only the scheme is in the schema: the host (credentials,
 * private or unresolvable addresses) is checked when it is set, with the reason in the 400.
 */
export const HttpsUrl = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^https:\/\/\S+$/, 'expected an https URL')
    .meta({ description: 'an https URL whose host resolves only to public addresses', format: 'uri' })

/** An OAuth redirect URI: https, or http on the loopback host: 127.0.0.1, localhost or [::1] (RFC 8252 native apps). */
export const RedirectUri = (max: number) =>
  z
    .string()
    .max(max)
    .regex(new RegExp(`^(?:https://${HOST}|http://(?:127\\.0\\.0\\.1|localhost|\\[::1\\])${PORT})${PATH}$`), 'expected an https URL (or http on the loopback host)')
    .meta({ description: 'https URL, or http on the loopback host', format: 'uri' })

/** Base64 (RFC 4648, padded), optionally as a data: URL, as the JSON schema states it. */
const BASE64_PATTERN = '^(?:data:[\\w/+.-]+;base64,)?(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$'

/** The same check without a repeated group (a regex over megabytes of it would exhaust the stack). */
function isBase64(s: string): boolean {
  const payload = s.replace(/^data:[\w/+.-]+;base64,/, '')
  return payload.length > 0 && payload.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(payload)
}

/** Base64 (RFC 4648, padded) or a base64 data: URL of an image. */
export const Base64Image = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine(isBase64, 'expected base64 (raw or a data: URL)')
    .meta({
      description: 'the image, base64 (padded) or a data: URL (data:image/png;base64,...); an image type other than png, jpeg, webp or gif is 415',
      contentEncoding: 'base64',
      pattern: BASE64_PATTERN,
    })

/** An exact wei amount: a decimal string (never a JSON number, which loses precision). */
export const Wei = z.string().regex(/^\d+$/).meta({ description: 'exact amount in wei, as a decimal string' })

export const BlockNumber = z.number().int().nonnegative()

/** Fields every chain-derived answer carries beside `data`. */
export const Measured = {
  chain_id: z.number().int().meta({ description: 'chain the answer is measured on' }),
  measured_through_block: BlockNumber.nullable().meta({ description: 'last block fully ingested; the answer reflects chain data up to it' }),
}

/** Response of an endpoint whose body is not modelled yet: an object `data`. */
export const GenericData = z.object({ data: z.record(z.string(), z.unknown()) }).passthrough()
