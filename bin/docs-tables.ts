// `npm run docs:tables`: migrate a fresh embedded database and write docs/tables.md from it, and
// infra/clickhouse/analyst-access.sql (the analysts' role, profile and quota for a cluster).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClickHouse } from '../core/clickhouse.ts'
import { migrate } from '../sql/migrate.ts'
import { missingComments, readCatalogue, renderCatalogue } from '../sql/tables-doc.ts'
import { analystAccessSql } from '../sql/analyst-access.ts'

const dir = mkdtempSync(join(tmpdir(), 'svc-tables-doc-'))
try {
  const ch = await createClickHouse({ DATA_DIR: dir, CLICKHOUSE_URL: undefined, CLICKHOUSE_USER: undefined, CLICKHOUSE_PASSWORD: undefined, CLICKHOUSE_DATABASE: undefined } as never)
  await migrate(ch)
  const catalogue = await readCatalogue(ch)
  await ch.close()
  const target = join(import.meta.dirname, '../docs/tables.md')
  writeFileSync(target, renderCatalogue(catalogue))
  writeFileSync(join(import.meta.dirname, '../infra/clickhouse/analyst-access.sql'), analystAccessSql())
  const missing = missingComments(catalogue)
  console.log(`wrote ${target}: ${catalogue.length} tables${missing.length ? `; without a comment: ${missing.join(', ')}` : ''}`)
  if (missing.length) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
