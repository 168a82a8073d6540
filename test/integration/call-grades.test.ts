import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClickHouse, queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { medianOfCounts } from '../../products/social/caller-grade.ts'
import { createLogger } from '../../core/logger.ts'
import { rollbackChain } from '../../pipelines/process/chain-rollback.ts'
import { createCallGrader, type CallGrader } from '../../pipelines/social/grade-calls.ts'
import { sqlFile } from '../../sql/sql-file.ts'
import { migrate } from '../../sql/migrate.ts'
import { tempDir } from '../setup/temp.ts'

/**
 * The call grader on constructed chain and social rows (real chDB): its stored grades and the
 * summaries aggregated from them must equal both the regrading view they replace (006
 * `graded_calls`, re-created here under its own name) and an independent computation in this
 * file, pass after pass, through late calls, a token turning real later and a reorg.
 */
const CHAIN = 4663
const T0 = 1_800_000_000
const BLOCK_SECONDS = 12
const dir = tempDir()
let ch: ClickHouseClient
let grader: CallGrader
let postSeq = 0

interface Swap { block: number; log: number; token: string; weth: bigint; amount: bigint }
const blocks = new Map<number, string>()
const swaps: Swap[] = []
const calls = new Map<string, number>() // author\0token -> first mention time
const runs = new Map<string, number>() // token -> real_at

let insertSeq = 0
/**
 * Insert rows as the pipelines do, with a token of their own: chDB keeps settings on its one
 * session, so an insert without a token would carry the last one set and could be taken for a
 * duplicate.
 */
async function insert(table: string, values: object[]): Promise<void> {
  await ch.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: `test-${insertSeq++}` } })
}

const tokenOf = (i: number) => `0x${i.toString(16).padStart(40, '0')}`
const timeOf = (block: number) => T0 + block * BLOCK_SECONDS
const TOKENS = Array.from({ length: 6 }, (_, i) => tokenOf(0xa0 + i))
const TIED = TOKENS[5]!

async function addBlocks(from: number, to: number, fork = 'a'): Promise<void> {
  const rows: object[] = []
  for (let n = from; n <= to; n++) {
    blocks.set(n, `0x${fork}${n.toString(16)}`)
    rows.push({ chain_id: CHAIN, number: n, hash: blocks.get(n), parent_hash: '', timestamp: timeOf(n), log_count: 0 })
  }
  await insert('chain_blocks', rows)
}

/** Swaps with prices that move (and sometimes a zero-WETH swap), a few per block, some blocks without. */
async function addSwaps(from: number, to: number, salt: number): Promise<void> {
  const rows: object[] = []
  for (let n = from; n <= to; n++) {
    TOKENS.forEach((token, k) => {
      const seed = (n * 31 + k * 17 + salt * 7) % 23
      if (seed > 6 + k) return // token k trades in about (7 + k) / 23 of blocks
      // Only TIED trades twice in a block: the replaced view's ASOF join picks either swap of a
      // block (same time) as it happens to read them, so it is compared on the other tokens.
      for (let log = 0; log < (token === TIED ? 2 : 1); log++) {
        const s: Swap = { block: n, log: k * 10 + log, token, weth: seed === 3 ? 0n : BigInt(1e15) * BigInt(1 + ((n + log * 5 + salt) % 97)), amount: BigInt(1e18) * BigInt(1 + (seed % 5)) }
        swaps.push(s)
        rows.push({
          chain_id: CHAIN, block_number: n, log_index: s.log, tx_hash: `0x${n}-${s.log}`, pool: `pool-${k}`, protocol: 'v2', token, trader: `0xt${(n + k) % 40}`,
          token_in: s.amount.toString(), token_out: '0', weth_in: '0', weth_out: s.weth.toString(), block_time: timeOf(n),
        })
      }
    })
  }
  await insert('swaps', rows)
}

/** Mentions; an account's first mention of a token is its call. */
async function mention(author: string, token: string, at: number): Promise<void> {
  const id = `${author}\u0000${token}`
  calls.set(id, Math.min(calls.get(id) ?? Infinity, at))
  await insert('mentions', [{ post_id: `p${postSeq++}`, token, symbol: '', via: 'address', ambiguous: 0, author, posted_at: at, captured_at: at + 3 }])
}

async function setRun(token: string, block: number): Promise<void> {
  runs.set(token, timeOf(block))
  await insert('token_real', [{ chain_id: CHAIN, token, real_block: block, real_at: timeOf(block) }])
}

/** Independent grading: from the rows this file wrote, in block and log order. */
function expectedGrades(): Map<string, { return1h: number; early: boolean; momentum: boolean }> {
  const head = Math.max(...blocks.keys())
  const chainTime = timeOf(head)
  const out = new Map<string, { return1h: number; early: boolean; momentum: boolean }>()
  const ordered = swaps.filter((s) => s.block <= head && s.amount > 0n).sort((a, b) => a.block - b.block || a.log - b.log)
  for (const [id, at] of calls) {
    const token = id.split('\u0000')[1]!
    if (chainTime < at + 3600) continue
    const own = ordered.filter((s) => s.token === token && timeOf(s.block) >= at && timeOf(s.block) <= at + 3600)
    const entry = own[0]
    const exit = own[own.length - 1]
    if (!entry || !exit || entry.weth === 0n) continue
    const price = (s: Swap) => Number(s.weth) / Number(s.amount)
    const run = runs.get(token)
    out.set(id, { return1h: price(exit) / price(entry) - 1, early: run !== undefined && at < run, momentum: run !== undefined && at >= run })
  }
  return out
}

async function storedGrades(): Promise<Map<string, { return1h: number; early: boolean; momentum: boolean }>> {
  const rows = await queryRows<{ author: string; token: string; return_1h: number; early: number; momentum: number; sign: number }>(
    ch,
    'SELECT author, token, return_1h, early, momentum, sign FROM call_grades ORDER BY version DESC, sign ASC LIMIT 1 BY author, token',
  )
  return new Map(rows.filter((r) => Number(r.sign) === 1).map((r) => [`${r.author}\u0000${r.token}`, { return1h: Number(r.return_1h), early: Number(r.early) === 1, momentum: Number(r.momentum) === 1 }]))
}

/** The replaced view's answer at the current chain time: graded calls with their run. */
async function viewGrades(): Promise<Map<string, { return1h: number; early: boolean; momentum: boolean }>> {
  const chainTime = timeOf(Math.max(...blocks.keys()))
  const rows = await queryRows<{ author: string; token: string; return_1h: number | null; called_at: string; run_at: string }>(
    ch,
    "SELECT author, token, return_1h, toUnixTimestamp(called_at) AS called_at, toUnixTimestamp(run_at) AS run_at FROM old_graded_calls(chain = 4663, chain_time = {t:UInt32}, author = '')",
    { t: chainTime },
  )
  const out = new Map<string, { return1h: number; early: boolean; momentum: boolean }>()
  for (const r of rows) {
    if (r.return_1h === null) continue
    const run = Number(r.run_at)
    out.set(`${r.author}\u0000${r.token}`, { return1h: r.return_1h, early: run > 0 && Number(r.called_at) < run, momentum: run > 0 && Number(r.called_at) >= run })
  }
  return out
}

/** Independent per-caller summary of the independent grades (median as quantileExactInclusive(0.5)). */
function expectedSummaries(): unknown[] {
  const grades = expectedGrades()
  const authors = [...new Set([...calls.keys()].map((k) => k.split('\u0000')[0]!))].sort()
  return authors.map((author) => {
    const own = [...grades].filter(([k]) => k.startsWith(`${author}\u0000`)).map(([, g]) => g)
    const r = own.map((g) => g.return1h).sort((a, b) => a - b)
    const h = 0.5 * (r.length - 1)
    const lo = Math.floor(h)
    const median = r.length === 0 ? null : lo + 1 >= r.length ? r[lo]! : r[lo]! + (h - lo) * (r[lo + 1]! - r[lo]!)
    return {
      author,
      calls: String([...calls.keys()].filter((k) => k.startsWith(`${author}\u0000`)).length),
      graded: String(own.length),
      early: String(own.filter((g) => g.early).length),
      momentum: String(own.filter((g) => g.momentum).length),
      hits: String(own.filter((g) => g.return1h > 0).length),
      median_return: median,
    }
  })
}

async function newSummaries(): Promise<unknown[]> {
  const rows = await queryRows<{ author: string; calls: string; graded: string; early: string; momentum: string; hits: string; returns: [number[], string[]] }>(ch, sqlFile(new URL('../../products/social/caller-summaries.sql', import.meta.url)))
  return rows
    .sort((a, b) => (a.author < b.author ? -1 : 1))
    .map((r) => ({ author: r.author, calls: r.calls, graded: r.graded, early: r.early, momentum: r.momentum, hits: r.hits, median_return: medianOfCounts(r.returns[0], r.returns[1].map(Number)) }))
}

const untied = <V>(m: Map<string, V>) => new Map([...m].filter(([k]) => !k.endsWith(TIED)))

async function expectAllAgree(): Promise<void> {
  const [stored, view] = await Promise.all([storedGrades(), viewGrades()])
  const independent = expectedGrades()
  expect(stored.size).toBeGreaterThan(0)
  const differ = [...new Set([...stored.keys(), ...independent.keys()])].filter((k) => JSON.stringify(stored.get(k)) !== JSON.stringify(independent.get(k)))
  expect(differ.map((k) => [k, stored.get(k), independent.get(k), view.get(k)])).toEqual([])
  expect(stored).toEqual(independent)
  expect(untied(stored)).toEqual(untied(view))
  expect(await newSummaries()).toEqual(expectedSummaries())
}

const tableCount = async (t: string) => Number((await queryRows<{ n: string }>(ch, `SELECT count() AS n FROM ${t}`))[0]!.n)

beforeAll(async () => {
  ch = await createClickHouse({ DATA_DIR: dir.path } as never)
  await migrate(ch)
  // The replaced view, under another name, as the reference.
  const old = readFileSync(join(import.meta.dirname, '../../sql/migrations/006_graded_calls.sql'), 'utf8').replace('CREATE VIEW IF NOT EXISTS graded_calls', 'CREATE VIEW old_graded_calls')
  await ch.command({ query: old.replace(/^--.*$/gm, '').trim().replace(/;\s*$/, '') })
  grader = createCallGrader({ ch, logger: createLogger('warn', 'test'), chainId: CHAIN, notedOverlapMs: 0 })
  // Four hours of chain; calls spread over it by three accounts.
  await addBlocks(1, 1200)
  await addSwaps(1, 1200, 0)
  for (let i = 0; i < 60; i++) await mention(`caller_${i % 10}`, TOKENS[Math.floor(i / 10)]!, timeOf(1) + i * 211)
  await mention('caller_0', TOKENS[0]!, timeOf(1) + 20) // a later mention of a called token is not a call
  await setRun(TOKENS[1]!, 300)
})
afterAll(async () => {
  await grader?.stop()
  await ch?.close()
  dir.cleanup()
})

describe('createCallGrader()', () => {
  it('a pass grades exactly the calls the replaced view graded, with the same returns, runs and summaries', async () => {
    const p = await grader.runOnce()
    expect(p).toMatchObject({ chainTime: timeOf(1200) })
    await expectAllAgree()
  })

  it('a second pass changes nothing', async () => {
    const before = [await tableCount('call_grades'), await newSummaries()]
    const p = await grader.runOnce()
    expect(p!.written).toBe(0)
    expect([await tableCount('call_grades'), await newSummaries()]).toEqual(before)
  })

  it('the chain advancing grades the calls whose hour closed, and only those', async () => {
    const before = (await storedGrades()).size
    await addBlocks(1201, 1500)
    await addSwaps(1201, 1500, 0)
    const p = await grader.runOnce()
    expect(p!.visited).toBeLessThan(calls.size)
    expect((await storedGrades()).size).toBeGreaterThan(before)
    await expectAllAgree()
  })

  it('a call stored after its hour closed is graded on the next pass', async () => {
    await mention('late_caller', TOKENS[2]!, timeOf(200))
    await mention('late_caller', TOKENS[3]!, timeOf(400))
    await grader.runOnce()
    expect([...(await storedGrades()).keys()].filter((k) => k.startsWith('late_caller'))).not.toHaveLength(0)
    await expectAllAgree()
  })

  it('a token turning real after its calls were graded makes the earlier ones early', async () => {
    const token = TOKENS[4]!
    const graded = [...(await storedGrades())].filter(([k]) => k.endsWith(token))
    expect(graded.length).toBeGreaterThan(2)
    expect(graded.every(([, g]) => !g.early && !g.momentum)).toBe(true)
    // The run lands between the token's calls: the ones before it are early, the rest momentum.
    const times = graded.map(([k]) => calls.get(k)!).sort((a, b) => a - b)
    const runBlock = Math.ceil((times[1]! - T0) / BLOCK_SECONDS)
    await setRun(token, runBlock)
    await grader.runOnce()
    const after = [...(await storedGrades())].filter(([k]) => k.endsWith(token))
    expect(after.filter(([, g]) => g.early).length).toBeGreaterThan(0)
    expect(after.filter(([, g]) => g.momentum).length).toBeGreaterThan(0)
    await expectAllAgree()
    const early = Number((await queryRows<{ n: string }>(ch, 'SELECT sum(early) AS n FROM caller_stats'))[0]!.n)
    expect(early).toBe([...expectedGrades().values()].filter((g) => g.early).length)
  })

  it('a reorg re-grades the calls whose window reached the rolled-back blocks', async () => {
    // Calls reach block ~1340 with their windows: a fork at 700 changes grades from there on,
    // removes the run given above (block ~722, so those calls are neither early nor momentum
    // again), and a new fork shorter than the old chain un-grades the calls whose hour it has
    // not reached again.
    const F = 700
    const gradedBefore = (await storedGrades()).size
    const earlyBefore = [...(await storedGrades()).values()].filter((g) => g.early).length
    await rollbackChain(ch, CHAIN, F, { old: blocks.get(F)!, new: '0xb' })
    for (const n of [...blocks.keys()]) if (n >= F) blocks.delete(n)
    swaps.splice(0, swaps.length, ...swaps.filter((s) => s.block < F))
    for (const [t, at] of runs) if (at >= timeOf(F)) runs.delete(t)
    // The new fork: other swaps from F on, and a shorter chain for now.
    await addBlocks(F, 1250, 'b')
    await addSwaps(F, 1250, 5)
    const p = await grader.runOnce()
    expect(p!.written).toBeGreaterThan(0)
    expect((await storedGrades()).size).toBeLessThan(gradedBefore)
    expect([...(await storedGrades()).values()].filter((g) => g.early).length).toBeLessThan(earlyBefore)
    await expectAllAgree()
    expect(await grader.runOnce()).toMatchObject({ written: 0 })
  })

  it('a pass waits while a rollback is still running (its old fork block is still there)', async () => {
    const F = 1200
    await insert('chain_reorgs', [{ chain_id: CHAIN, from_block: F, old_hash: blocks.get(F)!, new_hash: '0xc' }])
    expect(await grader.runOnce()).toMatchObject({ waitingForRollback: true, written: 0 })
    await ch.command({ query: 'DELETE FROM chain_reorgs WHERE from_block = 1200' })
    expect(await grader.runOnce()).toMatchObject({ written: 0 })
    expect((await grader.runOnce())?.waitingForRollback).toBeUndefined()
  })

  it('told what changed, a grader runs a pass only when it can grade something: a call window closing, calls stored, a token turned real', async () => {
    let passes = 0
    // The real client, counting the passes' reads of their inputs.
    const counting = new Proxy(ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver)
        return (args: { query: string }) => {
          if (args.query.includes("'head' AS kind")) passes++
          return target.query(args as Parameters<ClickHouseClient['query']>[0])
        }
      },
    }) as ClickHouseClient
    // The timer alone would not run a pass within the test; the passes above stored the checkpoint
    // a told pass starts from.
    const told = createCallGrader({ ch: counting, logger: createLogger('warn', 'test'), chainId: CHAIN, notedOverlapMs: 0, intervalMs: 3_600_000, toldGapMs: 0 })
    told.start()
    try {
      const head = Math.max(...blocks.keys())
      // The first batch told: when the next window closes is not known yet, so a pass reads it.
      await told.changed({ kind: 'chain', chainTime: timeOf(head) })
      expect(passes).toBe(1)
      const nextDue = (at: number) => Math.min(...[...calls.values()].filter((t) => t > at - 3600)) + 3600
      const due = nextDue(timeOf(head))
      expect(due).toBeLessThan(Number.POSITIVE_INFINITY)
      // A batch before it reads nothing.
      await told.changed({ kind: 'chain', chainTime: due - 1 })
      expect(passes).toBe(1)
      // The chain reaches it: that call is graded.
      const until = head + Math.ceil((due - timeOf(head)) / BLOCK_SECONDS)
      await addBlocks(head + 1, until)
      await addSwaps(head + 1, until, 0)
      await told.changed({ kind: 'chain', chainTime: timeOf(until) })
      expect(passes).toBe(2)
      await expectAllAgree()
      expect(nextDue(timeOf(until))).toBeGreaterThan(timeOf(until))
      await told.changed({ kind: 'chain', chainTime: timeOf(until) })
      expect(passes).toBe(2)
      // A token turned real, calls stored: a pass each.
      await told.changed({ kind: 'chain', chainTime: timeOf(until), turnedReal: true })
      expect(passes).toBe(3)
      await told.changed({ kind: 'calls' })
      expect(passes).toBe(4)
    } finally {
      await told.stop()
    }
  })
})
