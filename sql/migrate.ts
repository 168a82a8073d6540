import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ClickHouseClient } from '../core/clickhouse.ts'
import { forLongStatements, queryRows } from '../core/clickhouse.ts'

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations')

export interface Migration {
  version: number
  name: string
  checksum: string
  statements: string[]
}

/** Read `sql/migrations/NNN_name.sql` in version order. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8')
      return {
        version: Number(file.split('_')[0]),
        name: file.replace(/\.sql$/, ''),
        checksum: createHash('sha256').update(text).digest('hex'),
        statements: splitStatements(text),
      }
    })
}

/** Split a file on `;` at the end of a line, dropping comment-only chunks. */
export function splitStatements(text: string): string[] {
  return text
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean)
}

export interface MigrateResult {
  applied: string[]
  skipped: string[]
}

/**
 * Apply every migration not yet recorded in `schema_migrations`, in order. Safe to run twice:
 * statements are written IF NOT EXISTS, so a run interrupted inside a file re-applies it whole,
 * and a version is recorded only after all its statements ran. A recorded migration whose file
 * changed since is refused: migrations are append-only.
 */
export async function migrate(ch: ClickHouseClient, migrations = readMigrations()): Promise<MigrateResult> {
  await ch.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations
            (version UInt32, name String, checksum String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
            ENGINE = ReplacingMergeTree ORDER BY version`,
  })
  const done = new Map(
    (await queryRows<{ version: number; checksum: string }>(ch, 'SELECT version, checksum FROM schema_migrations FINAL')).map(
      (r) => [Number(r.version), r.checksum],
    ),
  )
  const result: MigrateResult = { applied: [], skipped: [] }
  // The two statements above are sent with the client's own timeout: an engine that does not
  // answer is told apart from one that is slow. A migration's statements (a view, a projection
  // built over a table's parts) may take an engine busy with other work longer than that
  // timeout; they are sent by the client for long statements.
  let ddl: ClickHouseClient | undefined
  for (const m of migrations) {
    const recorded = done.get(m.version)
    if (recorded !== undefined) {
      if (recorded !== m.checksum) {
        throw new Error(`migration ${m.name} was changed after it was applied; add a new migration instead`)
      }
      result.skipped.push(m.name)
      continue
    }
    ddl ??= await forLongStatements(ch)
    for (const statement of m.statements) await ddl.command({ query: statement })
    await ddl.insert({
      table: 'schema_migrations',
      values: [{ version: m.version, name: m.name, checksum: m.checksum }],
      format: 'JSONEachRow',
    })
    result.applied.push(m.name)
  }
  return result
}
