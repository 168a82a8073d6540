import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { analystAccessSql, analystAccessStatements } from '../../sql/analyst-access.ts'
import { streamBytes } from '../../sql/read-only.ts'
import { ANALYST_TABLES, SECRET_TABLES } from '../../sql/table-access.ts'
import { missingComments, readCatalogue, renderCatalogue } from '../../sql/tables-doc.ts'
import { startEmbedded, type Embedded } from '../setup/embedded.ts'

/**
 * The analysts' table catalogue: docs/tables.md is what `npm run docs:tables` generates from a
 * freshly migrated schema, every table and column carries a COMMENT, and the example queries of
 * docs/data-team.md run through /clickhouse with an analyst key.
 */

const DOCS = join(import.meta.dirname, '../../docs')
let env: Embedded
let base: string

beforeAll(async () => {
  env = await startEmbedded()
  await env.ingestThrough(60)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
})

afterAll(async () => {
  await env?.close()
})

describe('docs/tables.md', () => {
  it('every table and every column of a stored table has a COMMENT', async () => {
    const catalogue = await readCatalogue(env.rt.ch)
    expect(catalogue.length).toBeGreaterThan(40)
    expect(missingComments(catalogue), 'add a COMMENT (ALTER TABLE … MODIFY COMMENT / COMMENT COLUMN) in the migration that creates it').toEqual([])
  })

  it('no migration alters a materialized view (in chDB a restarted server then stops deduplicating retried inserts into its target); views are described from their definition', async () => {
    const catalogue = await readCatalogue(env.rt.ch)
    const views = catalogue.filter((t) => t.engine === 'MaterializedView')
    expect(views.length).toBeGreaterThan(20)
    for (const v of views) expect(v.comment, v.name).toMatch(/^Materialized view: keeps \w+ current from each insert into \w+/)
    const dir = join(import.meta.dirname, '../../sql/migrations')
    const altered = readdirSync(dir).flatMap((f) => {
      const sql = readFileSync(join(dir, f), 'utf8')
      return views.filter((v) => new RegExp(`ALTER\\s+TABLE\\s+(?:IF\\s+EXISTS\\s+)?\`?${v.name}\`?\\s`, 'i').test(sql)).map((v) => `${f}: ${v.name}`)
    })
    expect(altered).toEqual([])
  })

  it('is what the migrated schema generates (run `npm run docs:tables` after changing a migration)', async () => {
    const expected = renderCatalogue(await readCatalogue(env.rt.ch))
    expect(readFileSync(join(DOCS, 'tables.md'), 'utf8'), 'docs/tables.md is stale: run `npm run docs:tables`').toBe(expected)
  })
})

describe('the example queries of docs/data-team.md', () => {
  it('each runs through /clickhouse with an analyst key', { timeout: 120_000 }, async () => {
    const text = readFileSync(join(DOCS, 'data-team.md'), 'utf8')
    const queries = [...text.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())
    expect(queries.length).toBeGreaterThanOrEqual(5)
    const { key } = await env.api.deps.keys.create('analyst')
    const auth = `Basic ${Buffer.from(`analyst:${key}`).toString('base64')}`
    const rowCounts: number[] = []
    for (const query of queries) {
      const res = await fetch(`${base}/clickhouse/?default_format=JSONEachRow`, { method: 'POST', headers: { authorization: auth }, body: query })
      const body = await res.text()
      expect(res.status, `${query}\n→ ${body}`).toBe(200)
      const rows = body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
      rowCounts.push(rows.length)
    }
    // The chain examples (launches, volume, hourly swaps, totals) find the simulated chain's data.
    expect(rowCounts.slice(0, 4).every((n) => n > 0), `rows per example: ${rowCounts.join(', ')}`).toBe(true)
  })
})

describe('infra/clickhouse/analyst-access.sql (the distributed mode)', () => {
  const explain = async (statement: string) => (await streamBytes((await env.rt.ch.exec({ query: `EXPLAIN AST ${statement}` })).stream)).toString('utf8')

  it('is what sql/analyst-access.ts generates, and ClickHouse parses every statement', async () => {
    expect(readFileSync(join(DOCS, '../infra/clickhouse/analyst-access.sql'), 'utf8'), 'stale: run `npm run docs:tables`').toBe(analystAccessSql())
    const statements = analystAccessStatements()
    expect(statements.map((s) => s.split(' ')[0])).toEqual(expect.arrayContaining(['CREATE', 'GRANT']))
    // The role is granted the service's database table by table (the allow-list), never the whole
    // database nor a secret table; beside it only the catalogue views of information_schema.
    const grants = statements.filter((s) => s.startsWith('GRANT'))
    const catalogue = grants.filter((g) => /ON information_schema\.\* /i.test(g))
    expect(catalogue).toHaveLength(2)
    expect(grants.length).toBe(ANALYST_TABLES.length + catalogue.length)
    expect(grants.filter((g) => !catalogue.includes(g)).some((g) => /\.\*/.test(g))).toBe(false)
    for (const t of SECRET_TABLES) expect(grants.some((g) => g.includes(`.${t} `)), t).toBe(false)
    for (const s of statements) expect(await explain(s), s).toMatch(/Query/)
    // A statement ClickHouse does not accept fails the same check.
    await expect(explain("CREATE ROLE analyst SETTINGS PROFILE")).rejects.toThrow()
  })
})
