import type { z } from 'zod'
import { LruMap } from '../serving/lru-map.ts'

/**
 * A request's path and query, parsed once per distinct text: pollers at a feed's head, woken
 * together, send the same query (since, limit, wait), and the paid classes repeat their keys, so
 * most parses are of an input seen moments ago. Under a burst of 1,000 long-poll answers and their
 * re-polls the service's thread was 93 % busy and zod's parse of the query was 8.5 % of it.
 * Only successful parses are kept (a failure is thrown afresh each time), at most
 * PARSED_INPUTS_PER_SCHEMA per schema and of inputs up to KEPT_INPUT_CHARS long (a caller's
 * query is short; a flood of long distinct query strings is parsed, not kept, so the cache holds
 * at most a few hundred KiB per schema), and frozen: a handler never changes its input, and a
 * kept one is shared by every request that sent the same text.
 */
const PARSED_INPUTS_PER_SCHEMA = 512
const KEPT_INPUT_CHARS = 512

const bySchema = new WeakMap<z.ZodType, LruMap<object>>()

/** The kept parse of `input` (its text) under `schema`, if one was kept. */
export function keptParse(schema: z.ZodType, input: string): object | undefined {
  return bySchema.get(schema)?.get(input)
}

/** Keep a successful parse of `input`, frozen; answers it. */
export function keepParse<T>(schema: z.ZodType, input: string, parsed: T): T {
  if (parsed === null || typeof parsed !== 'object' || input.length > KEPT_INPUT_CHARS) return parsed
  let kept = bySchema.get(schema)
  if (!kept) bySchema.set(schema, (kept = new LruMap<object>(PARSED_INPUTS_PER_SCHEMA)))
  kept.set(input, Object.freeze(parsed))
  return parsed
}

/** A request's parsed path, query and body. */
export interface ParsedInput {
  params: unknown
  query: unknown
  body: unknown
}

/** GET URLs whose parse is kept, per endpoint (its paid keys and pollers' cursors repeat). */
const PARSED_URLS_PER_ENDPOINT = 1_024
const byEndpoint = new WeakMap<object, LruMap<ParsedInput>>()

/**
 * The kept parse of a GET to `endpoint` at `url` (its path and query as sent), if one was kept:
 * a GET's URL is all of its input, so the request is not taken apart and parsed again.
 */
export function keptRequestParse(endpoint: object, url: string): ParsedInput | undefined {
  return byEndpoint.get(endpoint)?.get(url)
}

/** Keep the successful parse of a GET's URL (of up to KEPT_INPUT_CHARS), frozen; answers it. */
export function keepRequestParse(endpoint: object, url: string, parsed: ParsedInput): ParsedInput {
  if (url.length > KEPT_INPUT_CHARS) return parsed
  let kept = byEndpoint.get(endpoint)
  if (!kept) byEndpoint.set(endpoint, (kept = new LruMap<ParsedInput>(PARSED_URLS_PER_ENDPOINT)))
  kept.set(url, Object.freeze(parsed))
  return parsed
}
