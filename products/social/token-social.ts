import type { RoomRecord } from './room-lead.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { createKeyedCache } from '../../core/serving/keyed-cache.ts'
import { readAheadWhileAsked } from '../../core/serving/read-ahead-on-advance.ts'
import { keptFromChanges } from '../../core/serving/kept-from-changes.ts'
import { corpusClock, firehoseClock, firstMentions, hourOf, mentionSummary, tgRecords, type MentionSummary } from './social-queries.ts'

/** Tokens whose social parts are kept, per part (least recently used dropped first). */
export const TOKEN_SOCIAL_KEPT = 20_000

type Deps = Pick<ApiDeps, 'ch' | 'social' | 'watermarks'>

/**
 * What the social data says of a token, kept per token and dropped when the social pipeline names
 * the token (caller_changes): its mentions (`mention`: the summary, the first mention) and its room
 * record (`sighting`). Shared by every product that reads them (/agent/features, /signals/calls).
 */
export interface TokenSocial {
  rooms(tokens: string[]): Promise<Map<string, RoomRecord>>
  firstMentions(tokens: string[]): Promise<Map<string, number>>
  /** The mention summary whose 24 h window ends at the hour of `clock` (the firehose clock). */
  mentionSummary(token: string, clock: number): Promise<MentionSummary>
  /** The social clocks: read whole once, then kept from the tokens each social sync names. */
  clocks(): Promise<SocialClocks>
}

export interface SocialClocks {
  /** The room corpus clock: the newest sighting (unix seconds, 0 without one). */
  corpus: number
  /** The firehose clock: the newest mention hour (mention windows end at its hour). */
  firehose: number
}

/** The social clocks, read now (whole: what the kept ones are held against). */
export async function readClocks(ch: Deps['ch']): Promise<SocialClocks> {
  const [corpus, firehose] = await Promise.all([corpusClock(ch), firehoseClock(ch)])
  return { corpus, firehose }
}

function createTokenSocial(deps: Deps): TokenSocial {
  const rooms = createKeyedCache<RoomRecord | null>(TOKEN_SOCIAL_KEPT, 'token_rooms')
  const firsts = createKeyedCache<number | null>(TOKEN_SOCIAL_KEPT, 'token_first_mentions')
  const summaries = createKeyedCache<{ hour: number; summary: MentionSummary }>(TOKEN_SOCIAL_KEPT, 'token_mention_summaries')
  // The clocks are maxima that only grow: read whole once, then over the tokens each sync names
  // (core/serving/kept-from-changes.ts), so a social batch costs a keyed read, not a scan.
  const corpus = keptFromChanges<number>({ whole: () => corpusClock(deps.ch), update: async (at, tokens) => Math.max(at, await corpusClock(deps.ch, tokens)) })
  const firehose = keptFromChanges<number>({ whole: () => firehoseClock(deps.ch), update: async (at, tokens) => Math.max(at, await firehoseClock(deps.ch, tokens)) })
  const keptClocks = async (): Promise<SocialClocks> => {
    const [c, f] = await Promise.all([corpus.value(), firehose.value()])
    return { corpus: c, firehose: f }
  }
  // Every row of /agent/features and every first-call answer reads them: while they are asked,
  // what moved them is read as soon as the data moves, before the next ask.
  const clocksAhead = readAheadWhileAsked(deps.watermarks, () => void deps.social.sync().then(keptClocks).catch(() => {}))
  deps.social.onChanges((changes) => {
    if (changes === null) {
      for (const c of [rooms, firsts, summaries]) c.clear()
      for (const c of [corpus, firehose]) c.reset()
    } else {
      for (const c of changes) {
        if (c.kind === 'mention') {
          firsts.delete(c.key)
          summaries.delete(c.key)
          firehose.changed([c.key])
        } else if (c.kind === 'sighting') {
          rooms.delete(c.key)
          corpus.changed([c.key])
        }
      }
    }
    if (clocksAhead.lately()) keptClocks().catch(() => {})
  })
  const present = <V>(m: Map<string, V | null>) => new Map([...m].filter((e): e is [string, V] => e[1] !== null))
  return {
    async rooms(tokens) {
      await deps.social.sync()
      return present(await rooms.getMany(tokens, (missing) => tgRecords(deps.ch, missing), null))
    },
    async firstMentions(tokens) {
      await deps.social.sync()
      return present(await firsts.getMany(tokens, (missing) => firstMentions(deps.ch, missing), null))
    },
    async clocks() {
      clocksAhead.asked()
      await deps.social.sync()
      return keptClocks()
    },
    async mentionSummary(token, clock) {
      await deps.social.sync()
      const hour = hourOf(clock)
      const load = async () => ({ hour, summary: await mentionSummary(deps.ch, token, clock) })
      const kept = await summaries.get(token, load)
      if (kept.hour === hour) return kept.summary
      // The firehose entered a new hour: the window moved.
      summaries.delete(token)
      return (await summaries.get(token, load)).summary
    },
  }
}

const kept = new WeakMap<Deps['social'], TokenSocial>()

/** The kept social parts of tokens (one keeper per social serving). */
export function tokenSocial(deps: Deps): TokenSocial {
  let k = kept.get(deps.social)
  if (!k) kept.set(deps.social, (k = createTokenSocial(deps)))
  return k
}
