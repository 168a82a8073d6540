import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'
import { FIFO_STATE_TYPE } from '../../products/wallet/fifo-sql.ts'
import { balancesAt, latestBlockAtOrBefore } from '../../products/structure/holder-balances.ts'
import { classOf, structureReport, structureReports, structureWindow } from '../../products/structure/structure-report.ts'
import { rollbackChain } from '../../pipelines/process/chain-rollback.ts'
import { migratedChDB } from '../setup/chdb.ts'

/**
 * Holder balances, the 24 h window and the labels on a constructed chain in a real chDB,
 * checked against a replay of the same transfers in TypeScript.
 */
const CHAIN = 4663
const ZERO = '0x0000000000000000000000000000000000000000'
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const TOKEN = addr(0xaaaa)
const DEPLOYER = addr(0xd0)
const POOL = addr(0xb00)
const INSIDER = addr(0x11)
const INSIDER2 = addr(0x12) // funded by INSIDER before the first swap: also an insider
const ROUND = addr(0x13) // gets exactly 1% of supply from the deployer
const FRIEND_A = addr(0x21)
const FRIEND_B = addr(0x22) // A and B trade directly: one entity
const T0 = 1_700_000_000
const BLOCK_SECONDS = 3_600 // one block an hour: 24 h = 24 blocks
const SUPPLY = 1_000_000n * 10n ** 18n

interface Tx { block: number; from: string; to: string; value: bigint }

let db: Awaited<ReturnType<typeof migratedChDB>>
let ch: ClickHouseClient
const txs: Tx[] = []
let logIndex = 0
let head = 0

async function insertBlocks(from: number, to: number, ts = (n: number) => T0 + n * BLOCK_SECONDS): Promise<void> {
  const values = []
  for (let n = from; n <= to; n++) values.push({ chain_id: CHAIN, number: n, hash: `0x${n.toString(16)}`, parent_hash: '0x0', timestamp: ts(n), log_count: 0 })
  await ch.insert({ table: 'chain_blocks', format: 'JSONEachRow', values })
  head = Math.max(head, to)
}

async function transfer(block: number, from: string, to: string, value: bigint): Promise<void> {
  txs.push({ block, from, to, value })
  await ch.insert({
    table: 'erc20_transfers', format: 'JSONEachRow',
    values: [{ chain_id: CHAIN, block_number: block, log_index: logIndex++, tx_hash: `0x${logIndex.toString(16)}`, token: TOKEN, from_address: from, to_address: to, value: value.toString(), block_time: T0 + block * BLOCK_SECONDS }],
  })
}

/** Balances at a block by replaying `txs` (zero address left out). */
function replay(atBlock: number): Map<string, bigint> {
  const b = new Map<string, bigint>()
  for (const t of txs) {
    if (t.block > atBlock) continue
    if (t.from !== ZERO) b.set(t.from, (b.get(t.from) ?? 0n) - t.value)
    if (t.to !== ZERO) b.set(t.to, (b.get(t.to) ?? 0n) + t.value)
  }
  return b
}

beforeAll(async () => {
  db = await migratedChDB()
  ch = db.ch
  await insertBlocks(1, 60)
  await ch.insert({ table: 'contract_creations', format: 'JSONEachRow', values: [{ chain_id: CHAIN, address: TOKEN, deployer: DEPLOYER, block_number: 1, tx_index: 0, tx_hash: '0x1', created_at: T0, decimals: 18 }] })
  await ch.insert({ table: 'pools', format: 'JSONEachRow', values: [{ chain_id: CHAIN, pool: POOL, protocol: 'v2', factory: addr(0xf), token0: TOKEN, token1: addr(0xeeee), block_number: 3, log_index: 0, created_at: T0 }] })
  await transfer(1, ZERO, DEPLOYER, SUPPLY)
  await transfer(2, DEPLOYER, INSIDER, 30_000n * 10n ** 18n + 7n)
  await transfer(2, DEPLOYER, ROUND, SUPPLY / 100n)
  await transfer(3, INSIDER, INSIDER2, 5_000n * 10n ** 18n)
  await transfer(3, DEPLOYER, POOL, 500_000n * 10n ** 18n)
  // The first swap, block 4: buys from the pool.
  await ch.insert({ table: 'swaps', format: 'JSONEachRow', values: [{ chain_id: CHAIN, block_number: 4, log_index: 0, tx_hash: '0xs', pool: POOL, protocol: 'v2', token: TOKEN, trader: addr(0x100), token_in: '0', token_out: '1', weth_in: '1', weth_out: '0', block_time: T0 + 4 * BLOCK_SECONDS }] })
  // After the first swap the deployer's transfers make no insider.
  await transfer(5, DEPLOYER, addr(0x14), 1_000n * 10n ** 18n)
  // Buyers from the pool over time, some selling back or exiting.
  for (let i = 0; i < 30; i++) await transfer(4 + i, POOL, addr(0x100 + i), BigInt(1_000 + i * 37) * 10n ** 18n + BigInt(i))
  await transfer(20, POOL, FRIEND_A, 2_000n * 10n ** 18n)
  await transfer(40, FRIEND_A, FRIEND_B, 500n * 10n ** 18n)
  for (let i = 0; i < 10; i++) await transfer(38 + i, addr(0x100 + i), POOL, BigInt(1_000 + i * 37) * 10n ** 18n + BigInt(i)) // exits
  for (let i = 10; i < 15; i++) await transfer(45, addr(0x100 + i), POOL, 100n * 10n ** 18n) // trims
  for (let i = 0; i < 6; i++) await transfer(50 + i, POOL, addr(0x200 + i), BigInt(700 + i) * 10n ** 18n) // new holders
  await transfer(52, INSIDER, POOL, 10_000n * 10n ** 18n)
  await transfer(55, addr(0x200), addr(0x200), 1n) // a self-transfer changes nothing
  await transfer(56, DEPLOYER, ZERO, 1_000n * 10n ** 18n) // a burn
}, 60_000)
afterAll(async () => db?.close())

async function expectReportMatchesReplay(toBlock: number): Promise<Awaited<ReturnType<typeof structureReport>>> {
  const r = await structureReport(ch, CHAIN, TOKEN, toBlock)
  const from = r.data.window.from_block
  const then = replay(from)
  const now = replay(toBlock)
  const wallets = new Set([...then.keys(), ...now.keys()].filter((w) => w !== POOL && ((then.get(w) ?? 0n) !== 0n || (now.get(w) ?? 0n) !== 0n)))
  expect(r.data.diff.total).toBe(wallets.size)
  const expected = [...wallets]
    .map((w) => ({ w, t: then.get(w) ?? 0n, n: now.get(w) ?? 0n }))
    .sort((a, b) => {
      const da = a.n - a.t < 0n ? a.t - a.n : a.n - a.t
      const db_ = b.n - b.t < 0n ? b.t - b.n : b.n - b.t
      return da !== db_ ? (da > db_ ? -1 : 1) : a.n !== b.n ? (a.n > b.n ? -1 : 1) : a.w < b.w ? -1 : 1
    })
  expect(r.data.diff.wallets.map((x) => [x.address, x.balance_then_wei, x.balance_now_wei, x.delta_wei, x.class, x.new_holder])).toEqual(
    expected.map((e) => [e.w, e.t.toString(), e.n.toString(), (e.n - e.t).toString(), classOf(e.t, e.n), e.t === 0n && e.n > 0n]),
  )
  const counts = { frozen: 0, added: 0, trimmed: 0, exited: 0 }
  for (const e of expected) counts[classOf(e.t, e.n)]++
  expect(r.data.diff.summary).toEqual(counts)
  const holders = [...now.entries()].filter(([w, b]) => w !== POOL && b > 0n).sort((a, b) => (a[1] !== b[1] ? (a[1] > b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
  expect(r.data.holders.count).toBe(holders.length)
  expect(r.data.holders.top.map((h) => [h.address, h.balance_wei])).toEqual(holders.slice(0, 50).map(([w, b]) => [w, b.toString()]))
  expect(r.data.pools).toEqual([{ address: POOL, balance_wei: (now.get(POOL) ?? 0n).toString() }])
  return r
}

describe('holder balances (migration 018) and structureReport()', () => {
  it('equal a replay of the transfers at the head, to the wei, with the baseline 24 h back', async () => {
    const r = await expectReportMatchesReplay(60)
    expect(r.data.window).toEqual({ from_block: 36, from_time: new Date((T0 + 36 * 3600) * 1000).toISOString().replace('.000Z', 'Z'), to_block: 60, to_time: new Date((T0 + 60 * 3600) * 1000).toISOString().replace('.000Z', 'Z') })
    expect(r.data.found).toBe(true)
    expect(r.data.diff.truncated).toBe(false)
    expect(r.data.holders.top.some((h) => h.address === ZERO)).toBe(false)
  })

  it('equal a replay at any earlier block (as_of), and before 24 h of history the window starts at the first block', async () => {
    for (const b of [45, 30, 10]) await expectReportMatchesReplay(b)
    const early = await structureReport(ch, CHAIN, TOKEN, 10)
    expect(early.data.window.from_block).toBe(1)
    expect(early.signal).toBe('insufficient_data')
  })

  it('finds the baseline by timestamp: a block exactly 86,400 s earlier is the baseline, one second later is not', async () => {
    expect((await latestBlockAtOrBefore(ch, CHAIN, T0 + 36 * 3600))!.number).toBe(36)
    expect((await latestBlockAtOrBefore(ch, CHAIN, T0 + 36 * 3600 - 1))!.number).toBe(35)
    expect((await structureWindow(ch, CHAIN, 60)).from.number).toBe(36)
    expect(await latestBlockAtOrBefore(ch, CHAIN, T0)).toBeNull()
  })

  it('labels the deployer, insiders (direct and deployer-funded, before the first swap), a round allocation and an entity', async () => {
    const r = await structureReport(ch, CHAIN, TOKEN, 60)
    const labels = new Map([...r.data.holders.top, ...r.data.diff.wallets].map((w) => [w.address, w.labels.map((l) => l.kind).sort()]))
    expect(labels.get(DEPLOYER)).toEqual(['deployer'])
    // INSIDER funded INSIDER2 directly: insiders both, and one entity.
    expect(labels.get(INSIDER)).toEqual(['entity', 'insider'])
    expect(labels.get(INSIDER2)).toEqual(['entity', 'insider'])
    expect(labels.get(ROUND)).toEqual(['insider', 'round_allocation'])
    expect(labels.get(addr(0x14))).toEqual([]) // after the first swap
    expect(labels.get(FRIEND_A)).toEqual(['entity'])
    expect(labels.get(FRIEND_B)).toEqual(['entity'])
    const ent = [...r.data.holders.top, ...r.data.diff.wallets].find((w) => w.address === FRIEND_B)!.labels[0]
    expect(ent).toEqual({ kind: 'entity', entity_id: FRIEND_A, wallets: 2 })
    const ins2 = r.data.diff.wallets.find((w) => w.address === INSIDER2)!.labels
    expect(ins2).toEqual([
      { kind: 'insider', from: INSIDER, received_wei: (5_000n * 10n ** 18n).toString(), block: 3 },
      { kind: 'entity', entity_id: INSIDER, wallets: 2 },
    ])
    // INSIDER received an uneven amount: not round.
    expect(labels.get(INSIDER)).not.toContain('round_allocation')
  })

  it('smart: a holder whose FIFO record over its tokens is a positive realized result with a win rate of at least 0.5 over at least 5 sells', async () => {
    const state = (realized: string, sells: number, wins: number) => `CAST(([], ${realized}, ${sells}, ${wins}, 0, 0, 0, 0), '${FIFO_STATE_TYPE}')`
    const put = (wallet: string, token: string, s: string, version: number) =>
      ch.command({ query: `INSERT INTO fifo_state (chain_id, wallet, token, through_pos, legs, state, sells_added, version) SELECT ${CHAIN}, '${wallet}', '${token}', 1, 1, ${s}, [], ${version}` })
    await put(FRIEND_A, addr(0x1), state('50', 3, 2), 1)
    await put(FRIEND_A, addr(0x2), state('10', 2, 1), 1) // 5 sells, 3 winning, +60 over two tokens: smart
    await put(FRIEND_B, addr(0x1), state('100', 4, 4), 1) // 4 sells: not enough
    await put(INSIDER, addr(0x1), state('-1', 9, 9), 1) // negative realized
    await put(INSIDER2, addr(0x1), state('5', 6, 2), 1) // win rate 1/3
    await put(INSIDER2, addr(0x1), state('5', 6, 3), 2) // a newer state of the same token: win rate 1/2, smart
    const r = await structureReport(ch, CHAIN, TOKEN, 60)
    const listed = new Map([...r.data.holders.top, ...r.data.diff.wallets].map((w) => [w.address, w.labels.filter((l) => l.kind === 'smart')]))
    expect(listed.get(FRIEND_A)).toEqual([{ kind: 'smart', basis: 'fifo_realized' }])
    expect(listed.get(INSIDER2)).toEqual([{ kind: 'smart', basis: 'fifo_realized' }])
    for (const w of [FRIEND_B, INSIDER, DEPLOYER]) expect(listed.get(w)).toEqual([])
    await ch.command({ query: 'TRUNCATE TABLE fifo_state' })
  })

  it('a v4 pool is an id: its tokens sit in the PoolManager, which is listed with the pools and is no holder', async () => {
    const token = addr(0xbbbb)
    const pm = addr(0x4444)
    await ch.insert({ table: 'pools', format: 'JSONEachRow', values: [{ chain_id: CHAIN, pool: `0x${'9'.repeat(64)}`, protocol: 'v4', factory: pm, token0: token, token1: ZERO, block_number: 2, log_index: 0, created_at: T0 }] })
    await ch.insert({
      table: 'erc20_transfers', format: 'JSONEachRow',
      values: [
        { chain_id: CHAIN, block_number: 2, log_index: 500, tx_hash: '0xv4', token, from_address: ZERO, to_address: FRIEND_A, value: '1000', block_time: T0 + 2 * 3600 },
        { chain_id: CHAIN, block_number: 3, log_index: 500, tx_hash: '0xv4', token, from_address: FRIEND_A, to_address: pm, value: '600', block_time: T0 + 3 * 3600 },
      ],
    })
    const r = await structureReport(ch, CHAIN, token, 60)
    expect(r.data.pools).toEqual([{ address: pm, balance_wei: '600' }])
    expect(r.data.holders).toEqual({ count: 1, top: [{ address: FRIEND_A, balance_wei: '400', share: '0.4', labels: [] }] })
  })

  it('several tokens computed together each get the answer computed for them alone', async () => {
    // A third token whose holders include the first token's pool and its insiders, with a pool
    // of its own and links between wallets that are linked differently in the first token.
    const third = addr(0xcccc)
    const thirdPool = addr(0xc00)
    await ch.insert({ table: 'contract_creations', format: 'JSONEachRow', values: [{ chain_id: CHAIN, address: third, deployer: INSIDER, block_number: 30, tx_index: 0, tx_hash: '0x3', created_at: T0, decimals: 6 }] })
    await ch.insert({ table: 'pools', format: 'JSONEachRow', values: [{ chain_id: CHAIN, pool: thirdPool, protocol: 'v2', factory: addr(0xf), token0: third, token1: addr(0xeeee), block_number: 31, log_index: 0, created_at: T0 }] })
    const moves: Array<[number, string, string, bigint]> = [
      [30, ZERO, INSIDER, 1_000_000n],
      [31, INSIDER, POOL, 100_000n],
      [31, INSIDER, FRIEND_B, 50_000n],
      [32, INSIDER, thirdPool, 400_000n],
      [40, thirdPool, INSIDER2, 30_000n],
      [50, FRIEND_B, addr(0x100), 20_000n],
      [59, thirdPool, DEPLOYER, 1_000n],
    ]
    await ch.insert({
      table: 'erc20_transfers', format: 'JSONEachRow',
      values: moves.map(([block, from, to, value], i) => ({ chain_id: CHAIN, block_number: block, log_index: 700 + i, tx_hash: `0xc${i}`, token: third, from_address: from, to_address: to, value: value.toString(), block_time: T0 + block * 3600 })),
    })
    const tokens = [TOKEN, addr(0xbbbb), third, addr(0xdddd)]
    for (const block of [60, 45, 20]) {
      const together = await structureReports(ch, CHAIN, tokens, block)
      for (const token of tokens) expect(together.get(token)!.answer, `${token} at ${block}`).toEqual(await structureReport(ch, CHAIN, token, block))
      // The batch is not one answer repeated: each token's own holders.
      expect(together.get(addr(0xdddd))!.answer.data.found).toBe(false)
    }
    const third60 = (await structureReports(ch, CHAIN, [third], 60)).get(third)!.answer.data
    // The first token's pool holds the third token as any wallet does; the third's pool is apart.
    expect(third60.holders.top.map((h) => h.address)).toContain(POOL)
    expect(third60.pools.map((p) => p.address)).toEqual([thirdPool])
  })

  it('a replayed batch (same deduplication token) counts once, and a reorg leaves no orphaned delta', async () => {
    const row = { chain_id: CHAIN, block_number: 58, log_index: 9_999, tx_hash: '0xdup', token: TOKEN, from_address: addr(0x201), to_address: addr(0x300), value: '5', block_time: T0 + 58 * 3600 }
    for (let i = 0; i < 2; i++) await ch.insert({ table: 'erc20_transfers', format: 'JSONEachRow', values: [row], clickhouse_settings: { insert_deduplication_token: 'batch-58-test', deduplicate_blocks_in_dependent_materialized_views: 1 } })
    txs.push({ block: 58, from: addr(0x201), to: addr(0x300), value: 5n })
    await expectReportMatchesReplay(60)
    expect((await balancesAt(ch, CHAIN, TOKEN, 60, [addr(0x300)])).get(addr(0x300))).toBe(5n)
    // Reorg from block 57: everything at or above it goes.
    await rollbackChain(ch, CHAIN, 57, { old: '0xa', new: '0xb' })
    txs.splice(0, txs.length, ...txs.filter((t) => t.block < 57))
    const orphans = await queryRows<{ n: string }>(ch, `SELECT count() AS n FROM holder_deltas WHERE token = {t:String} AND block_number >= 57`, { t: TOKEN })
    expect(orphans[0]!.n).toBe('0')
    await insertBlocks(57, 60)
    await transfer(58, addr(0x202), addr(0x301), 7n)
    await expectReportMatchesReplay(60)
  })
})
