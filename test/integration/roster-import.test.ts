import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createClickHouse, queryRows } from '../../core/clickhouse.ts'
import { runSvc } from '../setup/svc-process.ts'
import { tempDir } from '../setup/temp.ts'

describe('svc roster import <file.json>', () => {
  const data = tempDir()
  afterAll(() => data.cleanup())

  // With the in-process bus (no Kafka) the claims go straight to ClickHouse.
  it("loads an operator's leaderboard (validated as the admin endpoint does) as the roster", { timeout: 120_000 }, async () => {
    const claims = Array.from({ length: 3 }, (_, i) => ({ source: 'ops-board', wallet: '0x' + String(i + 1).repeat(40), rank: i + 1, claimed_pnl_usd_30d: 1000 - i, claimed_at: '2026-02-01T00:00:00Z' }))
    const good = join(data.path, 'board.json')
    writeFileSync(good, JSON.stringify({ claims }))
    const bad = join(data.path, 'bad.json')
    writeFileSync(bad, JSON.stringify([...claims, { ...claims[0], rank: 9 }]))

    const rejected = await runSvc(['roster', 'import', bad], { DATA_DIR: data.path, KAFKA_BROKERS: '' })
    expect(rejected.code).toBe(1)
    expect(rejected.stderr).toContain('a wallet appears twice')
    const ok = await runSvc(['roster', 'import', good], { DATA_DIR: data.path, KAFKA_BROKERS: '' })
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout.trim().split('\n').at(-1)!)).toMatchObject({ imported: 3, source: 'ops-board', via: 'clickhouse' })

    const ch = await createClickHouse({ DATA_DIR: data.path } as never)
    try {
      const rows = await queryRows<{ wallet: string; rank: number }>(ch, 'SELECT wallet, rank FROM leaderboard_claims FINAL ORDER BY rank')
      expect(rows.map((r) => r.wallet)).toEqual(claims.map((c) => c.wallet))
    } finally {
      await ch.close()
    }
  })
})
