import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Session } from 'chdb'
import { afterAll, describe, expect, it } from 'vitest'
import { generateClusterDdl, renderClusterDdl } from '../../infra/clickhouse/cluster-ddl.ts'
import { readMigrations } from '../../sql/migrate.ts'
import { tempDir } from '../setup/temp.ts'

const root = join(import.meta.dirname, '../..')
const migrations = readMigrations()
const statements = generateClusterDdl(migrations, { cluster: 'svc', database: 'svc' })
const session = new Session()
afterAll(() => session.cleanup())

/** Names a migration file creates with `CREATE <kind> [IF NOT EXISTS] name`. */
function created(kind: 'TABLE' | 'MATERIALIZED VIEW'): string[] {
  return migrations.flatMap((m) => m.statements.flatMap((s) => [...s.matchAll(new RegExp(`^CREATE ${kind} (?:IF NOT EXISTS )?(\\w+)`, 'gi'))].map((x) => x[1]!)))
}

describe('infra/clickhouse/cluster-ddl.ts: the cluster DDL generated from sql/migrations', () => {
  it('covers every migration file present', () => {
    const files = readdirSync(join(root, 'sql/migrations')).filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    expect(migrations.map((m) => `${m.name}.sql`)).toEqual(files.sort())
    const covered = new Set(statements.map((s) => s.migration))
    for (const m of migrations) expect(covered, m.name).toContain(m.name)
    // The last statement records every migration, so a process's migrate() finds them applied.
    expect(statements.at(-1)!.sql).toContain(`(${migrations.at(-1)!.version}, '${migrations.at(-1)!.name}', '${migrations.at(-1)!.checksum}')`)
  })

  it('every generated statement is parsed by ClickHouse itself (chDB EXPLAIN AST)', () => {
    const refused: string[] = []
    for (const s of statements) {
      try {
        session.query(`EXPLAIN AST ${s.sql}`, 'TSV')
      } catch (err) {
        refused.push(`${s.migration}: ${String(err).slice(0, 300)}\n${s.sql.slice(0, 300)}`)
      }
    }
    expect(refused).toEqual([])
    expect(statements.length).toBeGreaterThan(100)
  })

  it('each table is a Replicated*MergeTree local table plus a Distributed table sharded by a key, each view on every shard', () => {
    const sql = statements.map((s) => s.sql)
    for (const t of created('TABLE')) {
      expect(sql.some((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${t}_local ON CLUSTER 'svc'`) && /ENGINE = Replicated\w*MergeTree\('\/clickhouse\/tables\/\{uuid\}\/\{shard\}', '\{replica\}'/.test(s)), t).toBe(true)
      expect(sql.some((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${t} ON CLUSTER 'svc' AS ${t}_local`) && s.includes(`ENGINE = Distributed('svc', 'svc', '${t}_local', cityHash64(`)), t).toBe(true)
    }
    for (const v of created('MATERIALIZED VIEW')) {
      expect(sql.some((s) => s.startsWith(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${v} ON CLUSTER 'svc' TO `) && /\bFROM \w+_local\b/.test(s)), v).toBe(true)
    }
    // Sharded by token or wallet where the table is about one.
    const shard = (t: string) => sql.find((s) => s.includes(`'${t}_local', `))!.match(/cityHash64\(([^)]*)\)/)![1]
    expect(shard('swaps')).toBe('token')
    expect(shard('token_activity')).toBe('token')
    expect(shard('calls')).toBe('author')
    // A view whose target is sharded like its source writes locally; otherwise through the Distributed table.
    expect(sql.find((s) => s.includes('token_activity_mv ON CLUSTER'))).toContain('TO token_activity_local AS')
    expect(sql.find((s) => s.includes('calls_mv ON CLUSTER'))).toMatch(/TO calls AS[\s\S]*FROM mentions_local/)
    // Replicated tables deduplicate retried inserts with the replicated window; all DDL runs on the cluster.
    expect(sql.filter((s) => s.includes('non_replicated_deduplication_window'))).toEqual([])
    expect(sql.filter((s) => !s.startsWith('INSERT') && !s.includes("ON CLUSTER 'svc'"))).toEqual([])
  })

  it('the script writes the same DDL to a file', () => {
    const dir = tempDir()
    try {
      const out = join(dir.path, 'cluster.sql')
      execFileSync(process.execPath, ['--import', 'tsx', 'infra/clickhouse/cluster-ddl.ts', '--cluster', 'svc', '--database', 'svc', '--out', out], { cwd: root })
      expect(readFileSync(out, 'utf8')).toBe(renderClusterDdl(statements, { cluster: 'svc', database: 'svc' }))
    } finally {
      dir.cleanup()
    }
  })
})
