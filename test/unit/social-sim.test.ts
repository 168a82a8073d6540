import { describe, expect, it } from 'vitest'
import type { ChainBlock } from '../../pipelines/records/chain-block.ts'
import { CallerMirror, FollowSnapshot, SocialPost, TgSighting } from '../../pipelines/records/social.ts'
import { createChainSimulator, type SimLaunch } from '../../pipelines/sim/chain-sim.ts'
import { SIM_CALLERS, SIM_PRINCIPALS, clusterMembers } from '../../pipelines/sim/social-roster.ts'
import { createSocialSimulator, type SocialBatch } from '../../pipelines/sim/social-sim.ts'
import { extractTokenRefs, resolveRefs, type ResolvedRef } from '../../pipelines/social/extract.ts'

const BLOCK_SEC = 2
// Six hours and a bit: the baseline poll, a second poll, and many launches.
const BLOCKS = 6 * 1800 + 400

interface Driven {
  blocks: Array<{ block: ChainBlock; launched: readonly SimLaunch[] }>
}

function driveChain(seed: number, blocks: number): Driven {
  const chain = createChainSimulator({ chainId: 4663, seed })
  return { blocks: Array.from({ length: blocks }, () => ({ block: chain.nextBlock(), launched: chain.launched })) }
}

function driveSocial(chain: Driven, seed: number): SocialBatch[] {
  const social = createSocialSimulator({ seed, chainId: 4663 })
  return chain.blocks.map(({ block, launched }) => social.onBlock(block, launched))
}

// One history shared by the checks below (the chain is the slow part).
const CHAIN = driveChain(11, BLOCKS)
const BATCHES = driveSocial(CHAIN, 11)
const POSTS = BATCHES.flatMap((b) => b.posts)
const FOLLOWS = BATCHES.flatMap((b) => b.follows)
const SIGHTINGS = BATCHES.flatMap((b) => b.sightings)
const MIRRORS = BATCHES.flatMap((b) => b.mirrors)
const LAUNCHES = new Map<string, SimLaunch & { at: number }>()
for (const { block, launched } of CHAIN.blocks) for (const l of launched) LAUNCHES.set(l.token, { ...l, at: block.timestamp })

/** Each post's references, resolved against the tokens launched by its time (as the processor would). */
const RESOLVED: Array<{ post: SocialPost; refs: ResolvedRef[] }> = (() => {
  const bySymbol = new Map<string, string[]>()
  const known = new Set<string>()
  const out: Array<{ post: SocialPost; refs: ResolvedRef[] }> = []
  CHAIN.blocks.forEach(({ launched }, i) => {
    for (const l of launched) {
      known.add(l.token)
      bySymbol.set(l.symbol, [...(bySymbol.get(l.symbol) ?? []), l.token])
    }
    for (const post of BATCHES[i]!.posts) {
      out.push({ post, refs: resolveRefs(extractTokenRefs(post), (s) => bySymbol.get(s) ?? [], (a) => known.has(a)) })
    }
  })
  return out
})()

const roleOf = (handle: string) => SIM_CALLERS.find((c) => c.handle === handle)?.role

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[s.length >> 1]!
}

describe('ChainSimulator.launched', () => {
  it('ChainSimulator.launched lists the block’s creations with symbol and fate', () => {
    let seen = 0
    for (const { block, launched } of CHAIN.blocks) {
      expect(launched.map((l) => l.token)).toEqual(block.creations.map((c) => c.address))
      for (const l of launched) {
        expect(l.symbol).toBe(block.creations.find((c) => c.address === l.token)!.erc20!.symbol)
        expect(['dud', 'fade', 'rug', 'popular']).toContain(l.fate)
        expect(l.launchBlock).toBe(block.number)
        seen++
      }
    }
    expect(seen).toBeGreaterThan(100)
    expect(new Set([...LAUNCHES.values()].map((l) => l.fate)).size).toBe(4)
  })

  it('ChainSimulator.launched is empty after skipTo() and does not change the blocks', () => {
    const sim = createChainSimulator({ chainId: 4663, seed: 11 })
    sim.skipTo(500)
    expect(sim.launched).toEqual([])
    expect(JSON.stringify(sim.nextBlock())).toBe(JSON.stringify(CHAIN.blocks[499]!.block))
    expect(sim.launched).toEqual(CHAIN.blocks[499]!.launched)
  })
})

describe('createSocialSimulator()', () => {
  it('createSocialSimulator() gives identical records for the same seed and blocks', () => {
    expect(JSON.stringify(driveSocial(CHAIN, 11))).toBe(JSON.stringify(BATCHES))
  })

  it('createSocialSimulator() gives different records for a different seed', () => {
    const other = driveSocial(CHAIN, 12).flatMap((b) => b.posts)
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(POSTS))
  })

  it('createSocialSimulator() produces records that validate against the bus schemas', () => {
    for (const p of POSTS) expect(SocialPost.parse(p)).toEqual(p)
    for (const f of FOLLOWS) expect(FollowSnapshot.parse(f)).toEqual(f)
    for (const s of SIGHTINGS) expect(TgSighting.parse(s)).toEqual(s)
    for (const m of MIRRORS) expect(CallerMirror.parse(m)).toEqual(m)
    expect(POSTS.length).toBeGreaterThan(500)
    expect(SIGHTINGS.length).toBeGreaterThan(300)
  })

  it('createSocialSimulator() stamps posts within their block and captures them 0-30 s later, with unique ids', () => {
    CHAIN.blocks.forEach(({ block }, i) => {
      for (const p of BATCHES[i]!.posts) {
        expect(p.posted_at).toBeGreaterThanOrEqual(block.timestamp)
        expect(p.posted_at).toBeLessThan(block.timestamp + BLOCK_SEC)
        expect(p.captured_at - p.posted_at).toBeGreaterThanOrEqual(0)
        expect(p.captured_at - p.posted_at).toBeLessThanOrEqual(30)
      }
      for (const s of BATCHES[i]!.sightings) expect(s.seen_at - block.timestamp).toBeLessThan(BLOCK_SEC)
    })
    expect(new Set(POSTS.map((p) => p.id)).size).toBe(POSTS.length)
    expect(new Set(SIGHTINGS.map((s) => `${s.room}/${s.message_id}`)).size).toBe(SIGHTINGS.length)
  })

  it('createSocialSimulator() never mentions or sights a token before its launch', () => {
    for (const { post, refs } of RESOLVED) for (const r of refs) if (r.token) expect(post.posted_at).toBeGreaterThanOrEqual(LAUNCHES.get(r.token)!.at)
    for (const s of SIGHTINGS) expect(s.seen_at).toBeGreaterThanOrEqual(LAUNCHES.get(s.token)!.at)
  })

  it('createSocialSimulator() writes addresses, links, cashtags, ambiguous cashtags and posts without tokens', () => {
    const refs = RESOLVED.flatMap((r) => r.refs)
    expect(refs.filter((r) => r.via === 'address').length).toBeGreaterThan(100)
    expect(refs.filter((r) => r.via === 'cashtag' && !r.ambiguous).length).toBeGreaterThan(10)
    expect(refs.filter((r) => r.ambiguous).length).toBeGreaterThan(50)
    expect(POSTS.filter((p) => p.links.some((l) => extractTokenRefs({ text: '', links: [l] }).addresses.length > 0)).length).toBeGreaterThan(50)
    expect(RESOLVED.filter((r) => r.refs.length === 0).length).toBeGreaterThan(100)
    // Mixed-case (checksummed) addresses appear and resolve all the same.
    expect(POSTS.some((p) => /0x[0-9a-f]*[A-F][0-9a-fA-F]*/.test(p.text))).toBe(true)
  })

  it('createSocialSimulator() has early callers call popular tokens sooner after launch than late callers', () => {
    const firstCall = new Map<string, number>()
    for (const { post, refs } of RESOLVED) {
      for (const r of refs) {
        if (!r.token || LAUNCHES.get(r.token)!.fate !== 'popular') continue
        const key = `${post.author}|${r.token}`
        if (!firstCall.has(key)) firstCall.set(key, post.posted_at - LAUNCHES.get(r.token)!.at)
      }
    }
    const delays = (role: string) => [...firstCall].filter(([k]) => roleOf(k.split('|')[0]!) === role).map(([, d]) => d)
    const early = delays('early')
    const late = delays('late')
    expect(early.length).toBeGreaterThan(20)
    expect(late.length).toBeGreaterThan(20)
    expect(median(early)).toBeLessThan(180)
    expect(median(late)).toBeGreaterThan(600)
    expect(median(early)).toBeLessThan(median(late) / 4)
  })

  it('createSocialSimulator() has early callers call popular tokens more often than noise callers do', () => {
    const share = (role: string) => {
      const calls = RESOLVED.filter((r) => roleOf(r.post.author) === role).flatMap((r) => r.refs.filter((x) => x.token))
      return calls.filter((x) => LAUNCHES.get(x.token!)!.fate === 'popular').length / calls.length
    }
    expect(share('early')).toBeGreaterThan(0.6)
    expect(share('noise')).toBeLessThan(0.3)
  })

  it('createSocialSimulator() has cluster members mention the same token within minutes', () => {
    let coordinated = 0
    for (const cluster of ['a', 'b', 'c']) {
      const members = new Set(clusterMembers(cluster))
      const byToken = new Map<string, number[]>()
      for (const { post, refs } of RESOLVED) {
        if (!members.has(post.author)) continue
        for (const r of refs) if (r.token) byToken.set(r.token, [...(byToken.get(r.token) ?? []), post.posted_at])
      }
      for (const times of byToken.values()) if (times.length >= 3 && Math.max(...times) - Math.min(...times) <= 15 * 60) coordinated++
    }
    expect(coordinated).toBeGreaterThan(3)
  })

  it('createSocialSimulator() polls every tracked account at the first block, then every 6 h', () => {
    const first = CHAIN.blocks[0]!.block.timestamp
    const baseline = FOLLOWS.filter((f) => f.observed_at === first)
    const tracked = [...SIM_PRINCIPALS, ...SIM_CALLERS.map((c) => c.handle)]
    expect(baseline.map((f) => f.account).sort()).toEqual([...tracked].sort())
    expect(baseline.filter((f) => f.watched).map((f) => f.account).sort()).toEqual([...SIM_PRINCIPALS])
    expect([...new Set(FOLLOWS.map((f) => f.observed_at))]).toEqual([first, first + 6 * 3600])
  })

  it('createSocialSimulator() changes some watched principals’ follows between polls', () => {
    const first = CHAIN.blocks[0]!.block.timestamp
    const at = (t: number, account: string) => FOLLOWS.find((f) => f.account === account && f.observed_at === t)!.following
    const changed = SIM_PRINCIPALS.filter((p) => JSON.stringify(at(first, p)) !== JSON.stringify(at(first + 6 * 3600, p)))
    expect(changed.length).toBeGreaterThan(0)
  })

  it('createSocialSimulator() makes the clusters, and only they, follow each other mutually', () => {
    for (const t of new Set(FOLLOWS.map((f) => f.observed_at))) {
      const follows = new Map(FOLLOWS.filter((f) => f.observed_at === t).map((f) => [f.account, new Set(f.following)]))
      const mutual = new Set<string>()
      for (const [a, outs] of follows) for (const b of outs) if (follows.get(b)?.has(a)) mutual.add([a, b].sort().join('+'))
      const expected = new Set<string>()
      for (const cluster of ['a', 'b', 'c']) {
        const m = clusterMembers(cluster)
        for (const a of m) for (const b of m) if (a < b) expected.add(`${a}+${b}`)
      }
      expect([...mutual].sort()).toEqual([...expected].sort())
    }
  })

  it('createSocialSimulator() sights tokens in rooms, some in 3 or more, some before any post', () => {
    const rooms = new Map<string, Set<string>>()
    for (const s of SIGHTINGS) rooms.set(s.token, (rooms.get(s.token) ?? new Set()).add(s.room))
    const sizes = [...rooms.values()].map((r) => r.size)
    expect(sizes.filter((n) => n >= 3).length).toBeGreaterThan(10)
    expect(sizes.filter((n) => n < 3).length).toBeGreaterThan(10)
    expect(new Set(SIGHTINGS.map((s) => s.room)).size).toBeGreaterThan(20)

    const firstPost = new Map<string, number>()
    for (const { post, refs } of RESOLVED) for (const r of refs) if (r.token && !firstPost.has(r.token)) firstPost.set(r.token, post.posted_at)
    const firstSeen = new Map<string, number>()
    for (const s of SIGHTINGS) if (!firstSeen.has(s.token)) firstSeen.set(s.token, s.seen_at)
    const both = [...firstSeen].filter(([t]) => firstPost.has(t))
    expect(both.filter(([t, seen]) => seen < firstPost.get(t)!).length).toBeGreaterThan(10)
    expect(both.filter(([t, seen]) => seen > firstPost.get(t)!).length).toBeGreaterThan(10)
  })

  it('createSocialSimulator() mirrors caller records of solana and base at the first block', () => {
    const first = CHAIN.blocks[0]!.block.timestamp
    expect(MIRRORS.length).toBeGreaterThan(3)
    expect(MIRRORS.every((m) => m.updated_at === first)).toBe(true)
    expect(new Set(MIRRORS.map((m) => m.chain))).toEqual(new Set(['solana', 'base']))
  })

  it('createSocialSimulator() mirrors again once a day with growing call counts', () => {
    const social = createSocialSimulator({ seed: 11, chainId: 4663 })
    const days: CallerMirror[][] = []
    for (let n = 1; n <= 2 * 43_200 + 1; n++) {
      const out = social.onBlock({ number: n, timestamp: 1_000_000 + n * BLOCK_SEC, logs: [] }, [])
      if (out.mirrors.length > 0) days.push(out.mirrors)
    }
    expect(days.length).toBe(3)
    expect(days[2]!.map((m) => m.updated_at - days[0]![0]!.updated_at)).toEqual(days[2]!.map(() => 2 * 86_400))
    days[0]!.forEach((m, i) => expect(days[1]![i]!.calls).toBeGreaterThan(m.calls))
  })

  it('createSocialSimulator() refuses a gap in the blocks', () => {
    const social = createSocialSimulator({ seed: 1, chainId: 4663 })
    social.onBlock({ number: 1, timestamp: 1000, logs: [] }, [])
    expect(() => social.onBlock({ number: 3, timestamp: 1004, logs: [] }, [])).toThrow(RangeError)
  })

  it('createSocialSimulator() adds little to the cost of a block', () => {
    const social = createSocialSimulator({ seed: 11, chainId: 4663 })
    const start = performance.now()
    for (const { block, launched } of CHAIN.blocks) social.onBlock(block, launched)
    const perBlockMs = (performance.now() - start) / CHAIN.blocks.length
    // The chain simulator takes about 0.3 ms a block; the budget is 30% of that, checked loosely.
    expect(perBlockMs).toBeLessThan(0.1)
  })
})
