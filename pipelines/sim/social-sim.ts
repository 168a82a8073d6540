import type { ChainBlock, ChainLog } from '../records/chain-block.ts'
import type { CallerMirror, FollowSnapshot, SocialPost, TgSighting } from '../records/social.ts'
import { DEFAULT_BLOCK_TIME_SEC, type SimLaunch } from './chain-sim.ts'
import { createRng, type Rng, type RngState } from './prng.ts'
import { type CallerRole, type SimCaller, SIM_CALLERS, SIM_CROWD, SIM_PRINCIPALS } from './social-roster.ts'
import { chatterBody, mentionBody, type RefStyle, type Voice } from './social-text.ts'
import type { Fate } from './world.ts'

/**
 * The simulated social world layered on the simulated chain: callers who post about its
 * tokens, watched principals whose follows change, messaging rooms where tokens are sighted,
 * and caller records mirrored from other chains. It is driven by the chain simulator's blocks
 * and the fate the world gave each token at launch (ground truth a real firehose never has;
 * the records carry none of it), so what callers say lines up with what the chain then does.
 *
 * Deterministic: the same seed and the same blocks from the first one give the same records.
 * It keeps state (who follows whom, what is scheduled); `snapshot()` captures all of it as JSON
 * data, and a simulator created with that `state` continues exactly as the original would, so a
 * restarted service resumes it from a checkpoint instead of re-driving it from the first block.
 */

export interface SocialSimulatorOptions {
  seed: number | string
  chainId: number
  /** Seconds between blocks: a block's records are stamped within [timestamp, timestamp + this). Default 2. */
  blockTimeSec?: number
  /** Continue from a `snapshot()` of a simulator with the same seed, chain and block time. */
  state?: SocialSimState
}

/** What the social sim reads of a chain block: a `ChainBlock` will do. */
export type SocialSimBlock = Pick<ChainBlock, 'number' | 'timestamp'> & { logs: ReadonlyArray<Pick<ChainLog, 'address'>> }

/** The social records produced during one block's time span. */
export interface SocialBatch {
  posts: SocialPost[]
  follows: FollowSnapshot[]
  sightings: TgSighting[]
  mirrors: CallerMirror[]
}

export interface SocialSimulator {
  /** The opaque ids of the simulated messaging rooms. */
  readonly rooms: readonly string[]
  /**
   * The records of `block`'s time span. `launched` are the tokens created in it (the chain
   * simulator's `launched`). Blocks must come in order without gaps.
   */
  onBlock(block: SocialSimBlock, launched: readonly SimLaunch[]): SocialBatch
  /** Everything the simulator will need after the last block it was given (plain JSON data). */
  snapshot(): SocialSimState
  /** The last block given to `onBlock`, or -1 before the first. */
  readonly lastBlock: number
}

/** A scheduled event with its token named by address (tokens are stored once, in `tokens`). */
type StoredEvent = { kind: 'post'; author: string; voice: Voice; token: string; style: RefStyle } | { kind: 'sight'; room: number; token: string }

/** The social simulator's state after some block: what `snapshot()` returns. */
export interface SocialSimState {
  version: 1
  rng: RngState
  jitter: RngState
  roomMessages: number[]
  /** Tracked accounts and whom they follow, in insertion order (later draws depend on it). */
  following: Array<[string, string[]]>
  mirrors: Mirror[]
  earlyHits: string[]
  /** Every token some list or event below refers to. */
  tokens: TokenState[]
  live: string[]
  recent: string[]
  hot: string[]
  scheduled: Array<[number, StoredEvent[]]>
  last: number
  nextPollAt: number
  nextMirrorAt: number
  mirrorDay: number
  polls: number
}

const HOUR = 3600
const FOLLOW_POLL_SEC = 6 * HOUR
const MIRROR_SEC = 24 * HOUR
/** A token has "traded a lot for a while" (late callers wake up) after this many logs at its address and this age. */
const LATE_ACTIVITY = 150
const LATE_MIN_AGE_SEC = 10 * 60
/** Background posting, per hour of chain time. */
const NOISE_PER_HOUR = 24
const LATE_RANDOM_PER_HOUR = 1.5
const CROWD_PER_HOUR = 40
const CHATTER_PER_HOUR = 60
/** Noise and crowd pick among the latest launches that are at least this old. */
const RECENT_KEEP = 600
const RECENT_MIN_AGE_SEC = 30
const LIVE_KEEP_SEC = 24 * HOUR

const ROOMS = 30
/** Share of tokens sighted in rooms, the room count, and the share sighted before any post. */
const TG_PLAN: Record<Fate, { share: number; min: number; spread: number; lead: number }> = {
  popular: { share: 0.85, min: 3, spread: 12, lead: 0.6 },
  rug: { share: 0.55, min: 1, spread: 5, lead: 0.5 },
  fade: { share: 0.3, min: 1, spread: 3, lead: 0.3 },
  dud: { share: 0.05, min: 1, spread: 2, lead: 0.5 },
}
/** How each voice names its token: weights of address, link, both, cashtag. */
const STYLE_WEIGHTS: Record<Voice, readonly [number, number, number, number]> = {
  early: [45, 20, 20, 15],
  late: [25, 15, 20, 40],
  noise: [30, 10, 15, 45],
  cluster: [40, 30, 30, 0],
  crowd: [15, 10, 0, 75],
  again: [30, 10, 20, 40],
}
const STYLES: readonly RefStyle[] = ['address', 'link', 'both', 'cashtag']

interface TokenState {
  address: string
  symbol: string
  fate: Fate
  launchBlock: number
  /** Logs at the token's address so far: transfers, so about one per swap. */
  activity: number
  lateFired: boolean
  mentioned: boolean
  /** Rooms to sight the token in after its first mention (0: none, or already done). */
  roomsAfterMention: number
}

type Event =
  | { kind: 'post'; author: string; voice: Voice; token: TokenState; style: RefStyle }
  | { kind: 'sight'; room: number; token: TokenState }

/** A caller record measured on another chain, drifting a little every day. */
interface Mirror {
  chain: 'solana' | 'base'
  handle: string
  role: CallerRole
  calls: number
  callsPerDay: number
}

/** A deterministic social world over the blocks of one simulated chain. */
export function createSocialSimulator(opts: SocialSimulatorOptions): SocialSimulator {
  const { chainId, seed } = opts
  const blockSec = opts.blockTimeSec ?? DEFAULT_BLOCK_TIME_SEC
  // Plans (who mentions what, when) and per-record details (wording, jitter) draw from two
  // streams, so a change of wording does not reshuffle the plans.
  const rng = createRng(`social-sim/${chainId}/${seed}`)
  const jitter = createRng(`social-text/${chainId}/${seed}`)
  const blocksFor = (sec: number) => Math.max(1, Math.round(sec / blockSec))

  const rooms = Array.from({ length: ROOMS }, () => rng.hex(16))
  const roomWeights = rooms.map(() => rng.logRange(0.3, 3))
  const roomMessages = rooms.map(() => 0)

  const callers = SIM_CALLERS
  const early = callers.filter((c) => c.role === 'early')
  const late = callers.filter((c) => c.role === 'late')
  const noise = callers.filter((c) => c.role === 'noise')
  const clusters = [...new Set(callers.filter((c) => c.role === 'cluster').map((c) => c.cluster!))].map((k) => callers.filter((c) => c.cluster === k))
  const chatterers = [...callers.map((c) => c.handle), ...SIM_CROWD]

  const following = initialFollows(rng)
  const mirrors = initialMirrors(rng)
  /** Early callers who called a popular token since the last poll: principals take note. */
  const earlyHits = new Set<string>()

  const live = new Map<string, TokenState>()
  let recent: TokenState[] = []
  let hot: TokenState[] = []
  const scheduled = new Map<number, Event[]>()

  let last = -1
  let nextPollAt = 0
  let nextMirrorAt = 0
  let mirrorDay = 0
  let polls = 0

  function schedule(block: number, event: Event): void {
    const due = scheduled.get(block)
    if (due === undefined) scheduled.set(block, [event])
    else due.push(event)
  }

  function schedulePost(block: number, author: string, voice: Voice, token: TokenState): void {
    schedule(block, { kind: 'post', author, voice, token, style: pickStyle(rng, voice) })
  }

  /** Sightings in `count` distinct rooms, the first `firstSec` after `block`, the others spread over the next half hour. */
  function scheduleSightings(token: TokenState, block: number, count: number, firstSec: number): void {
    const chosen = new Set<number>()
    let total = 0
    for (const w of roomWeights) total += w
    while (chosen.size < Math.min(count, ROOMS)) {
      let x = rng.float() * total
      let r = 0
      while (r < ROOMS - 1 && (x -= roomWeights[r]!) >= 0) r++
      chosen.add(r)
    }
    let first = true
    for (const room of chosen) {
      let at = block + Math.round(firstSec / blockSec) + (first ? 0 : blocksFor(rng.range(20, 1800)))
      first = false
      for (let m = 1 + rng.poisson(0.7); m > 0; m--) {
        schedule(at, { kind: 'sight', room, token })
        at += blocksFor(rng.range(60, 1200))
      }
    }
  }

  function launch(l: SimLaunch, block: number): void {
    const token: TokenState = { address: l.token.toLowerCase(), symbol: l.symbol, fate: l.fate, launchBlock: block, activity: 0, lateFired: false, mentioned: false, roomsAfterMention: 0 }
    recent.push(token)
    if (recent.length > 2 * RECENT_KEEP) recent = recent.slice(-RECENT_KEEP)
    if (token.fate !== 'dud') live.set(token.address, token)

    const tg = TG_PLAN[token.fate]
    if (rng.chance(tg.share)) {
      const count = tg.min + rng.int(tg.spread)
      // Led by the rooms: sighted within seconds, before the earliest caller speaks (20 s).
      if (rng.chance(tg.lead)) scheduleSightings(token, block, count, rng.range(0, 10))
      else token.roomsAfterMention = count
    }

    if (token.fate === 'popular') {
      for (const c of early) if (rng.chance(0.08 + 0.22 * c.skill)) schedulePost(block + earlyDelay(c), c.handle, 'early', token)
    } else if (token.fate !== 'dud') {
      for (const c of early) if (rng.chance((1 - c.skill) * 0.012)) schedulePost(block + earlyDelay(c), c.handle, 'early', token)
    }

    if (token.fate !== 'dud') {
      const weight = token.fate === 'rug' ? 2.5 : token.fate === 'popular' ? 1.5 : 1
      for (const members of clusters) {
        if (!rng.chance(0.004 * weight)) continue
        const lead = blocksFor(rng.range(60, 900))
        const order = shuffled(rng, members)
        order.forEach((c, i) => {
          if (i === 0) schedulePost(block + lead, c.handle, 'cluster', token)
          else if (rng.chance(0.9)) schedulePost(block + lead + blocksFor(rng.range(15, 300)), c.handle, 'cluster', token)
        })
      }
    }
  }

  /** The best early callers are the quickest: 20 s to 1 min after launch; the worst up to 4 min. */
  function earlyDelay(c: SimCaller): number {
    return blocksFor(20 + rng.float() * (40 + 200 * (1 - c.skill)))
  }

  /** The token has traded a lot for a while: momentum callers pile in over the next half hour or so. */
  function wakeLate(token: TokenState, block: number): void {
    token.lateFired = true
    hot.push(token)
    if (hot.length > 120) hot = hot.slice(-60)
    for (const c of late) {
      if (rng.chance(0.2 + 0.4 * c.skill)) schedulePost(block + blocksFor(60 + rng.float() * (600 + 1800 * (1 - c.skill))), c.handle, 'late', token)
    }
  }

  /** A random launch at least RECENT_MIN_AGE_SEC old, or undefined. */
  function pickRecent(block: number): TokenState | undefined {
    let n = recent.length
    const youngest = block - blocksFor(RECENT_MIN_AGE_SEC)
    while (n > 0 && recent[n - 1]!.launchBlock > youngest) n--
    const from = Math.max(0, n - RECENT_KEEP)
    return n > from ? recent[from + rng.int(n - from)] : undefined
  }

  function background(block: number): void {
    const perBlock = blockSec / HOUR
    for (let n = rng.poisson(NOISE_PER_HOUR * perBlock); n > 0; n--) {
      const token = pickRecent(block)
      if (token !== undefined) schedulePost(block, rng.pick(noise).handle, 'noise', token)
    }
    for (let n = rng.poisson(LATE_RANDOM_PER_HOUR * perBlock); n > 0; n--) {
      const token = pickRecent(block)
      if (token !== undefined) schedulePost(block, rng.pick(late).handle, 'late', token)
    }
    for (let n = rng.poisson(CROWD_PER_HOUR * perBlock); n > 0; n--) {
      const token = hot.length > 0 && rng.chance(0.5) ? hot[Math.max(0, hot.length - 30) + rng.int(Math.min(30, hot.length))] : pickRecent(block)
      if (token !== undefined) schedulePost(block, rng.pick(SIM_CROWD), 'crowd', token)
    }
  }

  function postAt(block: SocialSimBlock, seq: number, author: string, body: { text: string; links: string[] }): SocialPost {
    const posted = block.timestamp + jitter.int(blockSec)
    return { id: `s${chainId}-${block.number}-${seq}`, author, posted_at: posted, captured_at: posted + jitter.int(31), text: body.text, links: body.links }
  }

  function runEvent(event: Event, block: SocialSimBlock, out: SocialBatch): void {
    const token = event.token
    if (event.kind === 'sight') {
      const seen = block.timestamp + jitter.int(blockSec)
      out.sightings.push({ room: rooms[event.room]!, message_id: String(++roomMessages[event.room]!), token: token.address, seen_at: seen })
      return
    }
    const body = mentionBody(jitter, event.voice, token, event.style, chainId)
    out.posts.push(postAt(block, out.posts.length, event.author, body))
    if (!token.mentioned) {
      token.mentioned = true
      // Rooms that pick a token up from the timeline: 30 s to 15 min after its first post.
      if (token.roomsAfterMention > 0) scheduleSightings(token, block.number, token.roomsAfterMention, rng.range(30, 900))
      token.roomsAfterMention = 0
    }
    if (event.voice === 'early' && token.fate === 'popular') earlyHits.add(event.author)
    if (event.voice !== 'again' && event.voice !== 'crowd' && rng.chance(0.25)) {
      schedulePost(block.number + blocksFor(rng.range(600, 5400)), event.author, 'again', token)
    }
  }

  function poll(t: number, out: SocialBatch): void {
    if (polls > 0) evolveFollows(rng, following, earlyHits, polls)
    earlyHits.clear()
    polls++
    for (const [account, set] of following) {
      out.follows.push({ account, observed_at: t, following: [...set].sort(), watched: SIM_PRINCIPALS.includes(account) })
    }
  }

  function mirror(t: number, out: SocialBatch): void {
    for (const m of mirrors) {
      if (mirrorDay > 0) m.calls += m.callsPerDay + rng.int(3)
      out.mirrors.push(mirrorRecord(rng, m, t))
    }
    mirrorDay++
  }

  function onBlock(block: SocialSimBlock, launched: readonly SimLaunch[]): SocialBatch {
    const n = block.number
    if (last >= 0 && n !== last + 1) throw new RangeError(`onBlock(${n}): expected block ${last + 1}; the social sim replays blocks in order from the first`)
    const out: SocialBatch = { posts: [], follows: [], sightings: [], mirrors: [] }
    const t = block.timestamp
    if (last < 0) {
      nextPollAt = t
      nextMirrorAt = t
    }
    last = n
    if (t >= nextPollAt) {
      poll(t, out)
      nextPollAt += FOLLOW_POLL_SEC
      for (const [address, token] of live) if (token.launchBlock < n - LIVE_KEEP_SEC / blockSec) live.delete(address)
    }
    if (t >= nextMirrorAt) {
      mirror(t, out)
      nextMirrorAt += MIRROR_SEC
    }

    if (live.size > 0) {
      const lateAge = LATE_MIN_AGE_SEC / blockSec
      for (const log of block.logs) {
        const token = live.get(log.address)
        if (token === undefined) continue
        token.activity++
        if (!token.lateFired && token.activity >= LATE_ACTIVITY && n - token.launchBlock >= lateAge) wakeLate(token, n)
      }
    }
    for (const l of launched) launch(l, n)
    background(n)

    // Events scheduled for this block while running it (none today) still run in it.
    for (let due = scheduled.get(n); due !== undefined; due = scheduled.get(n)) {
      scheduled.delete(n)
      for (const event of due) runEvent(event, block, out)
    }
    for (let k = rng.poisson((CHATTER_PER_HOUR * blockSec) / HOUR); k > 0; k--) {
      out.posts.push(postAt(block, out.posts.length, rng.pick(chatterers), chatterBody(jitter, chainId)))
    }
    if (out.posts.length > 1) out.posts.sort((a, b) => a.posted_at - b.posted_at)
    if (out.sightings.length > 1) out.sightings.sort((a, b) => a.seen_at - b.seen_at)
    return out
  }

  function snapshot(): SocialSimState {
    const tokens = new Map<string, TokenState>()
    const ref = (t: TokenState): string => {
      const seen = tokens.get(t.address)
      if (seen !== undefined && seen !== t) throw new Error(`social sim snapshot: two tokens at ${t.address}`)
      tokens.set(t.address, t)
      return t.address
    }
    const live_ = [...live.values()].map(ref)
    const recent_ = recent.map(ref)
    const hot_ = hot.map(ref)
    const scheduled_ = [...scheduled].map(([block, events]): [number, StoredEvent[]] => [
      block,
      events.map((e) => (e.kind === 'post' ? { kind: 'post', author: e.author, voice: e.voice, token: ref(e.token), style: e.style } : { kind: 'sight', room: e.room, token: ref(e.token) })),
    ])
    return {
      version: 1,
      rng: rng.save(),
      jitter: jitter.save(),
      roomMessages: roomMessages.slice(),
      following: [...following].map(([account, set]) => [account, [...set]]),
      mirrors: mirrors.map((m) => ({ ...m })),
      earlyHits: [...earlyHits],
      tokens: [...tokens.values()].map((t) => ({ ...t })),
      live: live_,
      recent: recent_,
      hot: hot_,
      scheduled: scheduled_,
      last,
      nextPollAt,
      nextMirrorAt,
      mirrorDay,
      polls,
    }
  }

  function restore(state: SocialSimState): void {
    if (state.version !== 1) throw new Error(`social sim state version ${String(state.version)}: expected 1`)
    const tokens = new Map(state.tokens.map((t) => [t.address, { ...t }]))
    const tok = (address: string): TokenState => {
      const t = tokens.get(address)
      if (t === undefined) throw new Error(`social sim state: unknown token ${address}`)
      return t
    }
    rng.load(state.rng)
    jitter.load(state.jitter)
    roomMessages.splice(0, roomMessages.length, ...state.roomMessages)
    following.clear()
    for (const [account, list] of state.following) following.set(account, new Set(list))
    mirrors.splice(0, mirrors.length, ...state.mirrors.map((m) => ({ ...m })))
    earlyHits.clear()
    for (const h of state.earlyHits) earlyHits.add(h)
    live.clear()
    for (const a of state.live) live.set(a, tok(a))
    recent = state.recent.map(tok)
    hot = state.hot.map(tok)
    scheduled.clear()
    for (const [block, events] of state.scheduled) {
      scheduled.set(block, events.map((e): Event => (e.kind === 'post' ? { ...e, token: tok(e.token) } : { ...e, token: tok(e.token) })))
    }
    last = state.last
    nextPollAt = state.nextPollAt
    nextMirrorAt = state.nextMirrorAt
    mirrorDay = state.mirrorDay
    polls = state.polls
  }

  if (opts.state !== undefined) restore(opts.state)

  return {
    rooms,
    onBlock,
    snapshot,
    get lastBlock() {
      return last
    },
  }
}

function pickStyle(rng: Rng, voice: Voice): RefStyle {
  const w = STYLE_WEIGHTS[voice]
  let x = rng.float() * (w[0] + w[1] + w[2] + w[3])
  for (let i = 0; i < 3; i++) if ((x -= w[i]!) < 0) return STYLES[i]!
  return STYLES[3]!
}

function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const a = items.slice()
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[a[i], a[j]] = [a[j]!, a[i]!]
  }
  return a
}

function sample<T>(rng: Rng, items: readonly T[], n: number): T[] {
  return shuffled(rng, items).slice(0, n)
}

/**
 * Who every tracked account follows when tracking begins. Cluster members follow each other;
 * otherwise a caller follows only callers listed before it and principals only principals listed
 * before them, so no mutual pair exists outside the clusters.
 */
function initialFollows(rng: Rng): Map<string, Set<string>> {
  const following = new Map<string, Set<string>>()
  SIM_PRINCIPALS.forEach((p, i) => {
    const set = new Set<string>([...sample(rng, SIM_CALLERS, 4 + rng.int(9)).map((c) => c.handle), ...sample(rng, SIM_CROWD, 3 + rng.int(8))])
    for (const q of SIM_PRINCIPALS.slice(0, i)) if (rng.chance(0.3)) set.add(q)
    following.set(p, set)
  })
  SIM_CALLERS.forEach((c, i) => {
    const set = new Set<string>(sample(rng, SIM_CROWD, 2 + rng.int(7)))
    const before = SIM_CALLERS.slice(0, i).filter((o) => o.cluster === null || o.cluster !== c.cluster)
    for (const o of sample(rng, before, Math.min(before.length, rng.int(8)))) set.add(o.handle)
    if (c.cluster !== null) for (const o of SIM_CALLERS) if (o.cluster === c.cluster && o !== c) set.add(o.handle)
    following.set(c.handle, set)
  })
  return following
}

/**
 * Six hours of follow changes: principals follow callers (often early callers who just called a
 * token that went on to run) and now and then drop one; a few callers follow someone new. At
 * least one principal changes every time.
 */
function evolveFollows(rng: Rng, following: Map<string, Set<string>>, earlyHits: ReadonlySet<string>, poll: number): void {
  const hits = [...earlyHits].sort()
  let changed = false
  const follow = (set: Set<string>) => {
    const handle = hits.length > 0 && rng.chance(0.6) ? rng.pick(hits) : rng.pick(SIM_CALLERS).handle
    if (set.has(handle)) return false
    set.add(handle)
    return true
  }
  for (const p of SIM_PRINCIPALS) {
    const set = following.get(p)!
    if (rng.chance(0.45)) for (let k = 1 + rng.int(2); k > 0; k--) changed = follow(set) || changed
    if (rng.chance(0.2)) {
      const followed = [...set].filter((h) => SIM_CALLERS.some((c) => c.handle === h))
      if (followed.length > 0) {
        set.delete(rng.pick(followed))
        changed = true
      }
    }
  }
  if (!changed) {
    const set = following.get(SIM_PRINCIPALS[poll % SIM_PRINCIPALS.length]!)!
    let tries = 0
    while (!follow(set) && ++tries < 100) continue
  }
  SIM_CALLERS.forEach((c, i) => {
    if (i === 0 || !rng.chance(0.03)) return
    const o = SIM_CALLERS[rng.int(i)]!
    if (o.cluster === null || o.cluster !== c.cluster) following.get(c.handle)!.add(o.handle)
  })
}

const MIRRORED: ReadonlyArray<{ chain: 'solana' | 'base'; handle: string; role: CallerRole }> = [
  { chain: 'solana', handle: 'early_01', role: 'early' },
  { chain: 'base', handle: 'early_01', role: 'early' },
  { chain: 'base', handle: 'early_05', role: 'early' },
  { chain: 'solana', handle: 'late_03', role: 'late' },
  { chain: 'base', handle: 'noise_02', role: 'noise' },
  { chain: 'solana', handle: 'ring_b1', role: 'cluster' },
  { chain: 'solana', handle: 'sol_scout', role: 'early' },
  { chain: 'base', handle: 'base_runner', role: 'late' },
]

function initialMirrors(rng: Rng): Mirror[] {
  return MIRRORED.map((m) => ({ ...m, calls: 8 + rng.int(60), callsPerDay: 1 + rng.int(6) }))
}

/** Rates by role (early, momentum, hit, median 1 h return), as ranges. */
const MIRROR_PROFILE: Record<CallerRole, { early: [number, number]; momentum: [number, number]; hit: [number, number]; median: [number, number] }> = {
  early: { early: [0.45, 0.7], momentum: [0.1, 0.25], hit: [0.55, 0.75], median: [0.05, 0.4] },
  late: { early: [0.02, 0.12], momentum: [0.5, 0.75], hit: [0.4, 0.6], median: [-0.05, 0.1] },
  noise: { early: [0, 0.08], momentum: [0.05, 0.15], hit: [0.2, 0.4], median: [-0.3, 0] },
  cluster: { early: [0.05, 0.2], momentum: [0.1, 0.2], hit: [0.2, 0.35], median: [-0.4, -0.1] },
}

/** Scored with the caller-score formula of DESIGN §7, from rates of the caller's role. */
function mirrorRecord(rng: Rng, m: Mirror, t: number): CallerMirror {
  const p = MIRROR_PROFILE[m.role]
  const r = ([lo, hi]: [number, number]) => Math.round(rng.range(lo, hi) * 1000) / 1000
  const early = r(p.early)
  const momentum = Math.min(1 - early, r(p.momentum))
  const hit = r(p.hit)
  const median = r(p.median)
  const score = Math.round(100 * (0.5 * early + 0.3 * hit + 0.2 * Math.min(1, Math.max(0, 0.5 + median))))
  return { chain: m.chain, handle: m.handle, calls: m.calls, early_rate: early, momentum_rate: momentum, median_return_1h: median, score, updated_at: t }
}
