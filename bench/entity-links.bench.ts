import { queryRows, tupleParam } from '../core/clickhouse.ts'
import { walletLinksOf } from '../products/structure/holder-balances.ts'
import { startEmbedded } from '../test/setup/embedded.ts'
import type { BenchResult } from './result.ts'

/**
 * The entity walk's links read (walletLinksOf, the first statement of a /structure computation's
 * labels) for many tokens at once, as a structure refresh asks it: each token's listed wallets.
 * Built with INSERT … SELECT from numbers(): TOKENS tokens, each with WALLETS_PER_TOKEN wallets of
 * a shared pool of addresses (so the tokens share holders, as on a chain), each wallet linked to
 * two peers. Timed at three sizes of the ask; the baseline, in the same run and on the same
 * data: the same read with the wallets sent as (token, wallet) pairs, the form before. Measured
 * here (stop 65): 2,000 pairs 131 ms against 79 (the flat list reads the links of wallets another
 * token asked for, and this data shares holders heavily), 4,000 378 against 246, 10,000 537
 * against 437, 15,000 696 ms against 73.9 s: past about 10,000 pairs the pairs form falls off a
 * cliff (on the default world 14,000 took 60-65 s), and a structure refresh of 200 tokens asks
 * for up to 200,000.
 */
const TOKENS = 50
const WALLETS_PER_TOKEN = 2_000
const SHARED_WALLETS = 30_000
const SIZES = [2_000, 8_000, 15_000]
const addr = (prefix: string, expr: string) => `concat('0x${prefix}', leftPad(lower(hex(toUInt64(${expr}))), 39, '0'))`

export async function benchEntityLinks(): Promise<BenchResult[]> {
  const env = await startEmbedded({ LOG_LEVEL: 'warn' }, { social: false })
  await env.grader.stop()
  const ch = env.rt.ch
  try {
    const built = performance.now()
    // Token t's wallets: WALLETS_PER_TOKEN addresses of the shared pool from an offset of its own.
    await ch.command({
      query: `INSERT INTO token_wallet_links (chain_id, token, wallet, peer, first_block, transfers)
              SELECT 4663, ${addr('a', 'intDiv(number, 2 * ' + WALLETS_PER_TOKEN + ')')} AS token,
                     ${addr('c', `(intDiv(number, 2 * ${WALLETS_PER_TOKEN}) * 997 + intDiv(number % (2 * ${WALLETS_PER_TOKEN}), 2)) % ${SHARED_WALLETS}`)} AS wallet,
                     ${addr('c', `(number * 7919 + 13) % ${SHARED_WALLETS}`)} AS peer, 1, 1
              FROM numbers(${TOKENS * WALLETS_PER_TOKEN * 2})`,
    })
    const buildMs = performance.now() - built
    const listed = await queryRows<{ token: string; wallet: string }>(ch, 'SELECT DISTINCT token, wallet FROM token_wallet_links WHERE chain_id = 4663 ORDER BY token, wallet')
    const tokens = [...new Set(listed.map((r) => r.token))]
    const results: BenchResult[] = []
    const timings: string[] = []
    let previous: { pairs: number; ours: number; base: number } | undefined
    for (const size of SIZES) {
      // `size` pairs spread evenly over the tokens, as a refresh of that many listed wallets asks.
      const per = Math.ceil(size / tokens.length)
      const asks = new Map(tokens.map((t) => [t, { wallets: listed.filter((r) => r.token === t).slice(0, per).map((r) => r.wallet), exclude: [] as string[] }]))
      const pairs = [...asks].flatMap(([t, a]) => a.wallets.map((w) => [t, w] as [string, string]))
      const t0 = performance.now()
      const ours = await walletLinksOf(ch, 4663, asks, 1)
      const oursMs = performance.now() - t0
      const t1 = performance.now()
      const base = await queryRows<{ token: string; wallet: string; peer: string }>(
        ch,
        `SELECT token, wallet, peer FROM token_wallet_links
         WHERE chain_id = 4663 AND token IN {tokens:Array(String)} AND (token, wallet) IN {wallets:Array(Tuple(String, String))}
         GROUP BY token, wallet, peer HAVING min(first_block) <= 1`,
        { tokens, wallets: tupleParam(pairs) },
      )
      const baseMs = performance.now() - t1
      if (ours.length !== base.length) throw new Error(`the two reads disagree: ${ours.length} links against ${base.length}`)
      const growth = previous ? `; from ${previous.pairs} pairs: ours x${(oursMs / previous.ours).toFixed(1)}, pairs form x${(baseMs / previous.base).toFixed(1)} for x${(pairs.length / previous.pairs).toFixed(1)} the pairs` : ''
      timings.push(`${pairs.length} pairs: ours ${oursMs.toFixed(0)} ms, pairs form ${baseMs.toFixed(0)} ms${growth}`)
      results.push({
        name: `entity links of ${tokens.length} tokens read at once, ${pairs.length} listed wallets (${ours.length} links)`,
        baseline: 'the same read with the wallets as (token, wallet) pairs (the form before)',
        ours: { value: Math.round(oursMs), unit: 'ms' },
        base: { value: Math.round(baseMs), unit: 'ms' },
        ratio: baseMs / oursMs,
        notes: `built ${TOKENS * WALLETS_PER_TOKEN * 2} links in ${buildMs.toFixed(0)} ms; ${timings.join(' | ')}`,
      })
      previous = { pairs: pairs.length, ours: oursMs, base: baseMs }
    }
    return results
  } finally {
    await env.close()
  }
}
