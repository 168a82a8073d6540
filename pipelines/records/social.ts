import { z } from 'zod'

/**
 * Social firehose records. Handles are lowercase without the @; addresses lowercase 0x hex;
 * times are unix seconds. Post text travels on the bus only as far as the extractor: it is
 * never stored and never returned.
 */
const handle = z.string().regex(/^[a-z0-9_]{1,30}$/, 'a lowercase handle without @')
const unixSeconds = z.number().int().nonnegative()

/** `social.posts`: one public post. */
export const SocialPost = z.object({
  id: z.string().min(1).max(64),
  author: handle,
  posted_at: unixSeconds,
  /** When our firehose captured it (the signals cursor clock). */
  captured_at: unixSeconds,
  text: z.string().max(10_000),
  links: z.array(z.string().max(2_000)).max(20).default([]),
})
export type SocialPost = z.infer<typeof SocialPost>

/**
 * `social.follows`: what one tracked account follows, as observed by a poll (about every 6 h).
 * Transitions are the differences between consecutive snapshots of the same account; the first
 * snapshot of an account is the baseline (edges already there when tracking began).
 */
export const FollowSnapshot = z.object({
  account: handle,
  observed_at: unixSeconds,
  following: z.array(handle).max(10_000),
  /** Watched principals are the accounts whose follows /social/follows reports. */
  watched: z.boolean(),
})
export type FollowSnapshot = z.infer<typeof FollowSnapshot>

/**
 * `tg.sightings`: a token seen in a message of a messaging-platform room. The room is an opaque
 * identifier (never a name) and no message text is carried.
 */
export const TgSighting = z.object({
  room: z.string().regex(/^[0-9a-f]{16,64}$/, 'an opaque hex room id'),
  message_id: z.string().min(1).max(64),
  token: z.string().regex(/^0x[0-9a-f]{40}$/),
  seen_at: unixSeconds,
})
export type TgSighting = z.infer<typeof TgSighting>

/** `social.caller_mirrors`: a caller record measured on another chain, mirrored as is. */
export const CallerMirror = z.object({
  chain: z.enum(['solana', 'base']),
  handle,
  calls: z.number().int().nonnegative(),
  early_rate: z.number().min(0).max(1),
  momentum_rate: z.number().min(0).max(1),
  median_return_1h: z.number(),
  score: z.number().int().min(0).max(100),
  updated_at: unixSeconds,
})
export type CallerMirror = z.infer<typeof CallerMirror>
