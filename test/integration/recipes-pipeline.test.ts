import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeEventLog, encodeAbiParameters, encodeEventTopics, type Hex, parseAbi, toEventSelector } from 'viem'
import { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type ClickHouseClient } from '../../core/clickhouse.ts'
import { createLogger } from '../../core/logger.ts'
import { createMetrics, type Metrics } from '../../core/metrics.ts'
import { createMemoryBus } from '../../core/bus/memory-bus.ts'
import { deadLetterTopic } from '../../core/bus/topics.ts'
import type { Bus, BusMessage, Subscription } from '../../core/bus/types.ts'
import { erc20Abi } from '../../pipelines/decode/erc20.ts'
import { malformed, shapeError, topicAddress, word, wordAddress } from '../../pipelines/decode/hex.ts'
import { createDecoderRegistry, type DecodedEvent, decodeLog, decoders, type EventDecoder, FAMILIES, type LogInput } from '../../pipelines/decode/index.ts'
import { createConsumer, type Consumer, type Sink } from '../../pipelines/consumer/create-consumer.ts'
import { drop, ok, type Step } from '../../pipelines/consumer/step-result.ts'
import { createTableSink } from '../../pipelines/consumer/table-sink.ts'
import { createRng } from '../../pipelines/sim/prng.ts'
import { migrate, readMigrations } from '../../sql/migrate.ts'
import { migratedChDB } from '../setup/chdb.ts'
import { randomAddress, withRandomCase } from '../setup/decode-cases.ts'
import { freePort } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'
import { until } from '../setup/until.ts'

/**
 * The two recipes of docs/architecture.md, "Adding a decoder" and "Adding a consumer", followed
 * step by step with a made-up event family and a made-up record: when a recipe stops being
 * true, this file fails.
 */

// ---------------------------------------------------------------------------------------------
// Adding a decoder, step 1: a made-up launchpad family, written as pipelines/decode/<family>.ts
// would be.

const launchpadAbi = parseAbi([
  'event Launched(address indexed token, address indexed creator, address curve, uint256 supply)',
])
const LAUNCHED = 'Launched(address,address,address,uint256)'
const LAUNCHED_TOPIC0 = toEventSelector(launchpadAbi[0])

/** The variant step 2 would add to `DecodedEvent`; types.ts is not edited by a test, hence the cast below. */
interface LaunchpadLaunched {
  type: 'launchpad_launched'
  address: string
  token: string
  creator: string
  curve: string
  supply: bigint
}

const launched: EventDecoder = {
  event: LAUNCHED,
  topic0: LAUNCHED_TOPIC0,
  decode(log) {
    const bad = shapeError(log.topics, log.data, 3, 2)
    if (bad !== null) return malformed(LAUNCHED, bad)
    const event: LaunchpadLaunched = {
      type: 'launchpad_launched',
      address: log.address.toLowerCase(),
      token: topicAddress(log.topics[1]),
      creator: topicAddress(log.topics[2]),
      curve: wordAddress(log.data, 0),
      supply: word(log.data, 1),
    }
    return event as unknown as DecodedEvent
  },
}
const launchpadDecoders: readonly EventDecoder[] = [launched]

/** A Launched log as a node would return it, encoded by viem (an implementation independent of ours). */
function launchedLog(seed: string): LogInput {
  const rng = createRng(seed)
  const topics = encodeEventTopics({ abi: launchpadAbi, eventName: 'Launched', args: { token: randomAddress(rng, 0.05), creator: randomAddress(rng, 0.05) } })
  // A random bit length, so both small and full 256-bit supplies occur.
  const supply = BigInt('0x' + rng.hex(1 + rng.int(64)))
  const data = encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [randomAddress(rng, 0.05), supply])
  return withRandomCase(rng, { address: randomAddress(rng, 0), topics: topics as string[], data })
}

/** What the decoder must answer, read from viem's `decodeEventLog` of the same log. */
function launchedFromViem(log: LogInput): LaunchpadLaunched {
  const { args } = decodeEventLog({ abi: launchpadAbi, topics: log.topics as [Hex], data: log.data as Hex })
  if (args === undefined) throw new Error('viem decoded no arguments')
  return {
    type: 'launchpad_launched',
    address: log.address.toLowerCase(),
    token: args.token.toLowerCase(),
    creator: args.creator.toLowerCase(),
    curve: args.curve.toLowerCase(),
    supply: args.supply,
  }
}

describe('recipe: adding a decoder', () => {
  // Step 3: the family joins FAMILIES (here a registry built the way index.ts builds its own).
  const registry = createDecoderRegistry([...FAMILIES, launchpadDecoders])

  it('a family added to FAMILIES is dispatched by its topic0 and decodes as viem decodeEventLog does', () => {
    // Not registered, the event is not followed: the registration step is what makes it decoded.
    expect(decodeLog(launchedLog('unregistered'))).toBeNull()
    // The RPC source filters the node's logs by this list (rpc-source.ts maps `decoders` to topic0s).
    expect(registry.decoders).toEqual([...decoders, launched])
    expect(toEventSelector(launched.event)).toBe(launched.topic0)
    for (let i = 0; i < 200; i++) {
      const log = launchedLog(`launched/${i}`)
      expect(registry.decodeLog(log)).toEqual(launchedFromViem(log))
    }
  })

  it('a Launched log of the wrong shape is answered malformed by decode() itself, never thrown', () => {
    const good = launchedLog('malformed')
    const wrongShapes: Array<[string, LogInput]> = [
      ['one data word', { ...good, data: good.data.slice(0, 66) }],
      ['empty data', { ...good, data: '0x' }],
      ['an odd number of hex digits', { ...good, data: good.data + '0' }],
      ['two topics', { ...good, topics: good.topics.slice(0, 2) }],
      ['a short topic', { ...good, topics: [good.topics[0]!, '0x1234', good.topics[2]!] }],
    ]
    for (const [shape, log] of wrongShapes) {
      const direct = launched.decode(log)
      expect(direct, shape).toMatchObject({ type: 'malformed', event: LAUNCHED, reason: expect.stringMatching(/\S/) })
      expect(registry.decodeLog(log), shape).toEqual(direct)
    }
  })

  it('a topic0 registered twice stops the registry from being built, naming the topic0', () => {
    expect(() => createDecoderRegistry([...FAMILIES, launchpadDecoders, launchpadDecoders])).toThrow(LAUNCHED_TOPIC0)
  })

  it('the existing families still decode through a registry that has the new one (an ERC20 Transfer)', () => {
    const rng = createRng('transfer')
    const from = randomAddress(rng, 0)
    const to = randomAddress(rng, 0)
    const value = BigInt('0x' + rng.hex(40))
    const log: LogInput = {
      address: randomAddress(rng, 0),
      topics: encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from, to } }) as string[],
      data: encodeAbiParameters([{ type: 'uint256' }], [value]),
    }
    const decoded = registry.decodeLog(log)
    expect(decoded).toEqual({ type: 'erc20_transfer', address: log.address.toLowerCase(), from: from.toLowerCase(), to: to.toLowerCase(), value })
    expect(decoded).toEqual(decodeLog(log))
  })
})

// ---------------------------------------------------------------------------------------------
// Adding a consumer, with a made-up "note" record.

/** Step 1: the topic (TOPICS in core/bus/topics.ts in the recipe; a name of the test's own here). */
const NOTES_TOPIC = 'recipes.notes'

/** Step 2: the record's zod schema (pipelines/records/<name>.ts). */
const Note = z.object({ id: z.string().min(1), text: z.string() })
type Note = z.infer<typeof Note>

/** Step 3: a step as `createXStep(deps)`: a note with nothing in it is dropped, not dead-lettered. */
function createBlankNoteStep(): Step<Note, Note> {
  return { name: 'blank-note', run: (note) => (note.text.trim() === '' ? drop('blank') : ok(note)) }
}

/** Step 4: the table in a new migration, keyed by the note's natural key, deduplicating retried inserts. */
const NOTES_MIGRATION = `
CREATE TABLE IF NOT EXISTS recipe_notes
(
    id   String,
    text String
)
ENGINE = ReplacingMergeTree
ORDER BY id
SETTINGS non_replicated_deduplication_window = 10000;
`

const noteRows = (notes: Note[]) => notes.map((n) => ({ id: n.id, text: n.text }))

/** Step 5: the processor, written as pipelines/process/price-processor.ts is; `wrapSink` lets a test wrap its table sink. */
function createNotesProcessor(deps: { ch: ClickHouseClient; bus: Bus; metrics: Metrics; topic: string; wrapSink?: (sink: Sink<Note>) => Sink<Note> }): Consumer {
  const table = createTableSink<Note>({ name: 'notes-writer', ch: deps.ch, metrics: deps.metrics, tables: (notes) => [['recipe_notes', noteRows(notes)]] })
  return createConsumer({
    name: `notes-${deps.topic}`,
    bus: deps.bus,
    logger: createLogger('silent'),
    metrics: deps.metrics,
    topic: deps.topic,
    schema: Note,
    steps: [createBlankNoteStep()],
    sink: deps.wrapSink ? deps.wrapSink(table) : table,
    backoffMs: 20,
  })
}

describe('recipe: adding a consumer', () => {
  let db: Awaited<ReturnType<typeof migratedChDB>>
  let ch: ClickHouseClient
  let bus: Bus
  const running: Array<Consumer | Subscription> = []

  beforeAll(async () => {
    db = await migratedChDB()
    ch = db.ch
    bus = createMemoryBus({ retryDelayMs: 20 })
    // Step 4 for real: the next free number after the repository's migrations, applied by migrate().
    const existing = readMigrations()
    const name = `${String(Math.max(...existing.map((m) => m.version)) + 1).padStart(3, '0')}_recipe_notes`
    const dir = tempDir()
    try {
      writeFileSync(join(dir.path, `${name}.sql`), NOTES_MIGRATION)
      const result = await migrate(ch, [...existing, ...readMigrations(dir.path)])
      expect(result.applied).toEqual([name])
    } finally {
      dir.cleanup()
    }
    // Stopped merges: a duplicate insert shows as an extra row instead of being replaced away.
    await ch.command({ query: 'SYSTEM STOP MERGES recipe_notes' })
  })
  afterAll(async () => {
    for (const r of running) await r.stop()
    await bus?.close()
    await db?.close()
  })

  const publishNotes = (topic: string, values: Array<[key: string, value: string]>) =>
    bus.publish(topic, values.map(([key, value]) => ({ key, value })))

  /** Every message on `topic`, read by a fresh group from the beginning. */
  async function collect(topic: string): Promise<BusMessage[]> {
    const seen: BusMessage[] = []
    running.push(await bus.subscribe({ groupId: `reader-${topic}`, topics: [topic], fromBeginning: true, async onBatch(b) { seen.push(...b.messages) } }))
    return seen
  }

  async function rowsWithPrefix(prefix: string): Promise<Array<[string, string]>> {
    const rows = await queryRows<{ id: string; text: string }>(ch, `SELECT id, text FROM recipe_notes WHERE startsWith(id, {prefix:String}) ORDER BY id`, { prefix })
    return rows.map((r) => [r.id, r.text])
  }

  it('valid notes land as rows, an invalid one is dead-lettered with its reason while the ones behind it go in, a dropped one goes nowhere', async () => {
    const metrics = createMetrics()
    const consumer = createNotesProcessor({ ch, bus, metrics, topic: NOTES_TOPIC })
    running.push(consumer)
    await publishNotes(NOTES_TOPIC, [
      ['a', JSON.stringify({ id: 'first-1', text: 'hello' })],
      ['b', JSON.stringify({ id: 'first-2' })],
      ['c', JSON.stringify({ id: 'first-3', text: '   ' })],
      ['d', JSON.stringify({ id: 'first-4', text: 'world' })],
    ])
    await consumer.start()
    expect(deadLetterTopic(NOTES_TOPIC)).toBe(`${NOTES_TOPIC}.dlq`)
    const dead = await collect(deadLetterTopic(NOTES_TOPIC))
    await until('the notes consumed', async () => ((await consumer.lag()) === 0 && dead.length >= 1 ? true : undefined))

    expect(await rowsWithPrefix('first-')).toEqual([['first-1', 'hello'], ['first-4', 'world']])
    expect(dead.map((m) => [m.key, m.headers?.step])).toEqual([['b', 'parse']])
    expect(dead[0]!.headers?.reason).toMatch(/^invalid_record: text: /)
    expect(await metrics.stepResults.get({ consumer: `notes-${NOTES_TOPIC}`, step: 'blank-note', result: 'drop' })).toBe(1)
  })

  it('a batch whose insert acknowledgement is lost twice is retried with the same token and inserted once', async () => {
    const topic = `${NOTES_TOPIC}.retried`
    // A table without the deduplication window, fed the same inserts: it shows that they did repeat.
    await ch.command({ query: 'CREATE TABLE recipe_notes_without_window (id String, text String) ENGINE = MergeTree ORDER BY id' })
    const metrics = createMetrics()
    const withoutWindow = createTableSink<Note>({ name: 'control-writer', ch, metrics, tables: (notes) => [['recipe_notes_without_window', noteRows(notes)]] })
    const refused = await freePort()
    const tokens: string[] = []
    // The insert lands, then its acknowledgement is lost to a real refused connection, twice:
    // the consumer retries the same batch under the same token.
    const loseAcks = (table: Sink<Note>): Sink<Note> => ({
      name: 'notes-writer-lost-acks',
      async write(items, ctx) {
        await table.write(items, ctx)
        await withoutWindow.write(items, ctx)
        tokens.push(ctx.token)
        if (tokens.length < 3) await fetch(`http://127.0.0.1:${refused}/`)
      },
    })
    const notes = Array.from({ length: 20 }, (_, i) => ({ id: `retried-${String(i).padStart(2, '0')}`, text: `note ${i}` }))
    await publishNotes(topic, notes.map((n) => [n.id, JSON.stringify(n)]))
    const consumer = createNotesProcessor({ ch, bus, metrics, topic, wrapSink: loseAcks })
    running.push(consumer)
    await consumer.start()
    await until('the batch acknowledged', async () => (tokens.length >= 3 && (await consumer.lag()) === 0 ? true : undefined))

    expect(tokens).toHaveLength(3)
    expect(new Set(tokens).size).toBe(1)
    const [control] = await queryRows<{ c: string }>(ch, 'SELECT count() AS c FROM recipe_notes_without_window')
    expect(Number(control!.c)).toBe(3 * notes.length)
    expect(await rowsWithPrefix('retried-')).toEqual(notes.map((n) => [n.id, n.text]))
  })
})
