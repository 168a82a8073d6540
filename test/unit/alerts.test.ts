import { describe, expect, it } from 'vitest'
import { measuredCallAlerts, provenAmong, provenDeployerAlerts } from '../../pipelines/alerts/producers.ts'
import { signatureHeader, verifySignature } from '../../pipelines/alerts/sign.ts'
import { addressProblem, checkWebhookUrl, WebhookUrlError } from '../../products/alerts/webhook-url.ts'
import type { CallerRecord } from '../../products/social/social-serving.ts'
import type { DeployerHistory, TokenRecord } from '../../products/token/token-serving.ts'
import { createMemoryStore } from '../../core/store/memory-store.ts'
import { AlertEvent } from '../../products/alerts/alert.ts'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const DEPLOYER = addr(0xd1)

function token(n: number, o: { deployer?: string; real?: boolean; launchedAt: string }): TokenRecord {
  const visibleUs = Date.parse(o.launchedAt) * 1000 + n
  return {
    token: addr(n), deployer: o.deployer ?? DEPLOYER, name: `T${n}`, symbol: `T${n}`, decimals: 18, createdBlock: n, createdAt: o.launchedAt,
    launch: { pool: addr(0x1000 + n), protocol: 'v2', block: n, launchedAt: o.launchedAt, visibleUs },
    swaps: 0, wethVolumeWei: 0n, traders: 0, firstSwapBlock: null, lastSwapBlock: null, lastSwapAt: null,
    realBlock: o.real ? n + 1 : null, realAt: null, quote: null, supplyWei: 0n, liquidityAdded: 0n, liquidityRemoved: 0n, insiderPrep: false, lastActivity: null, dead: null,
  }
}

/** Feed-ordered launches and each deployer's history, with its score given (the producer reads the record, not the formula). */
function book(tokens: TokenRecord[], scores: Record<string, number>): { feed: TokenRecord[]; histories: Map<string, DeployerHistory>; tokens: Map<string, TokenRecord> } {
  const histories = new Map<string, DeployerHistory>()
  for (const t of tokens) {
    let d = histories.get(t.deployer!)
    if (!d) histories.set(t.deployer!, (d = { deployer: t.deployer!, launched: 0, real: 0, dead: 0, insiderPrepLaunches: 0, best: null, insiderPrep: false, score: scores[t.deployer!] ?? 0, band: 'proven', launches: [] }))
    d.launched++
    if (t.realBlock !== null) d.real++
    d.launches.unshift(t)
  }
  const feed = [...tokens].sort((a, b) => a.launch!.visibleUs - b.launch!.visibleUs)
  return { feed, histories, tokens: new Map(tokens.map((t) => [t.token, t])) }
}

/** The proven launches after `afterUs`, as a producer pass over the feed from that cursor finds them. */
const provenAfter = (b: ReturnType<typeof book>, afterUs: number) => provenAmong(b.feed.filter((t) => t.launch!.visibleUs > afterUs), b.histories)

describe('proven_deployer_launch producer', () => {
  const history = [
    token(1, { real: true, launchedAt: '2026-11-19T10:00:00Z' }),
    token(2, { real: true, launchedAt: '2026-11-19T11:00:00Z' }),
    token(3, { launchedAt: '2026-11-20T09:00:00Z' }),
    token(4, { launchedAt: '2026-11-20T15:00:00Z' }),
    token(5, { launchedAt: '2026-11-21T01:00:00Z' }),
  ]

  it('provenAmong() needs score >= 70 and at least 2 earlier real tokens', () => {
    const b = book(history, { [DEPLOYER]: 80 })
    expect(provenAfter(b, 0).map((l) => l.token.token)).toEqual([addr(3), addr(4), addr(5)])
    expect(provenAfter(b, 0)[0]!.priorReal).toBe(2)
    expect(provenAfter(book(history, { [DEPLOYER]: 69 }), 0)).toEqual([])
    // Only one real token before: not proven yet.
    const oneReal = [token(1, { real: true, launchedAt: '2026-11-19T10:00:00Z' }), token(2, { launchedAt: '2026-11-19T11:00:00Z' }), token(3, { real: true, launchedAt: '2026-11-19T12:00:00Z' })]
    expect(provenAfter(book(oneReal, { [DEPLOYER]: 90 }), 0)).toEqual([])
    // Launches at or before the watermark are not new.
    expect(provenAfter(b, history[3]!.launch!.visibleUs).map((l) => l.token.token)).toEqual([addr(5)])
  })

  it('provenDeployerAlerts() alerts at most once per deployer per UTC day, also across passes', async () => {
    const store = createMemoryStore()
    const b = book(history, { [DEPLOYER]: 80 })
    const first = await provenDeployerAlerts(provenAfter(b, 0), 4663, store)
    // Tokens 3 and 4 launch on the same day: only the first alerts; token 5 is the next day.
    expect(first.map((e) => e.data.token)).toEqual([addr(3), addr(5)])
    expect(first.map((e) => e.id)).toEqual([`proven_deployer_launch:${DEPLOYER}:2026-11-20`, `proven_deployer_launch:${DEPLOYER}:2026-11-21`])
    expect(first[0]).toMatchObject({ kind: 'proven_deployer_launch', data: { deployer: DEPLOYER, score: 80, prior_real: 2, real: 2, launched: 5 } })
    for (const e of first) expect(AlertEvent.safeParse(e).success).toBe(true)
    expect(await provenDeployerAlerts(provenAfter(b, 0), 4663, store)).toEqual([])
    const later = book([...history, token(6, { launchedAt: '2026-11-21T20:00:00Z' })], { [DEPLOYER]: 80 })
    expect(await provenDeployerAlerts(provenAfter(later, history[4]!.launch!.visibleUs), 4663, store)).toEqual([])
  })
})

describe('measured_caller_call producer', () => {
  const caller = (handle: string, measured: boolean) => ({ handle, measured, score: 80, grade: 'A', graded: measured ? 5 : 2, cluster: null }) as unknown as CallerRecord
  const social = new Map([['alice', caller('alice', true)], ['bob', caller('bob', false)]])
  const t = token(7, { launchedAt: '2026-11-21T01:00:00Z' })
  const b = book([t], {})
  const lp = new Map([[t.launch!.pool, [addr(0xaa), addr(0xbb)]]])
  const calls = [
    { author: 'alice', token: t.token, postId: 'p1', calledAt: 1_795_000_000, capturedAt: 1_795_000_005 },
    { author: 'bob', token: t.token, postId: 'p2', calledAt: 1_795_000_000, capturedAt: 1_795_000_005 },
  ]

  it('measuredCallAlerts() alerts calls of measured callers once, with the launch pool liquidity providers', async () => {
    const store = createMemoryStore()
    const out = await measuredCallAlerts(calls, social, b.tokens, lp, store)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatchObject({ kind: 'measured_caller_call', data: { author: 'alice', token: t.token, pool: t.launch!.pool, lp: [addr(0xaa), addr(0xbb)] } })
    expect(AlertEvent.safeParse(out[0]).success).toBe(true)
    expect(await measuredCallAlerts(calls, social, b.tokens, lp, store)).toEqual([])
  })
})

describe('webhook URL policy', () => {
  it('addressProblem() refuses private, loopback, link-local, CGNAT, multicast and unspecified addresses', () => {
    for (const a of ['10.1.2.3', '172.16.0.1', '192.168.0.1', '127.0.0.1', '169.254.1.1', '100.64.0.1', '224.0.0.1', '0.0.0.0', '255.255.255.255', '::', '::1', 'fe80::1', 'fd12::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:a00:1']) {
      expect(addressProblem(a, false), a).not.toBeNull()
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '100.128.0.1']) expect(addressProblem(a, false), a).toBeNull()
    expect(addressProblem('127.0.0.1', true)).toBeNull()
    expect(addressProblem('::1', true)).toBeNull()
    expect(addressProblem('10.0.0.1', true)).not.toBeNull()
  })

  it('checkWebhookUrl() refuses https://localhost unless loopback is allowed, and any host with one private address', async () => {
    const lookup = async (host: string) =>
      host === 'localhost' ? [{ address: '127.0.0.1', family: 4 as const }] : host === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 as const }, { address: '10.0.0.7', family: 4 as const }] : [{ address: '93.184.216.34', family: 4 as const }]
    await expect(checkWebhookUrl('https://localhost/x', { allowLoopback: false, lookup })).rejects.toMatchObject({ reason: 'blocked_address', address: '127.0.0.1' })
    await expect(checkWebhookUrl('https://localhost/x', { allowLoopback: true, lookup })).resolves.toMatchObject({ addresses: [{ address: '127.0.0.1' }] })
    await expect(checkWebhookUrl('https://mixed.example/x', { allowLoopback: true, lookup })).rejects.toMatchObject({ reason: 'blocked_address', address: '10.0.0.7' })
    await expect(checkWebhookUrl('http://public.example/x', { allowLoopback: false, lookup })).rejects.toBeInstanceOf(WebhookUrlError)
    await expect(checkWebhookUrl('https://public.example/x', { allowLoopback: false, lookup })).resolves.toBeTruthy()
    await expect(checkWebhookUrl('https://nothing.invalid/x', { allowLoopback: false, lookup: async () => [] })).rejects.toMatchObject({ reason: 'unresolvable' })
  })
})

describe('signatures', () => {
  it('signatureHeader() is t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")> and verifySignature() checks it', () => {
    const h = signatureHeader('whsec_x', '{"a":1}', 1_700_000_000)
    // Computed independently: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_x
    expect(h).toBe('t=1700000000,v1=b3438763ab46d9634b9844c8722818eaf523f803db1327484c6067462a5fd6d1')
    expect(verifySignature('whsec_x', '{"a":1}', h, 1_700_000_010)).toBe(true)
    expect(verifySignature('whsec_x', '{"a":2}', h, 1_700_000_010)).toBe(false)
    expect(verifySignature('whsec_x', '{"a":1}', h, 1_700_001_000)).toBe(false)
  })
})
