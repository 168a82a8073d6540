import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../core/config.ts'

describe('dependency timeouts in the configuration', () => {
  it('default to a few seconds for ClickHouse and half a second per Redis command', () => {
    const c = loadConfig({})
    expect(c.CLICKHOUSE_REQUEST_TIMEOUT_MS).toBe(5_000)
    expect(c.REDIS_COMMAND_TIMEOUT_MS).toBe(500)
    expect(loadConfig({ CLICKHOUSE_REQUEST_TIMEOUT_MS: '1500', REDIS_COMMAND_TIMEOUT_MS: '250' })).toMatchObject({ CLICKHOUSE_REQUEST_TIMEOUT_MS: 1500, REDIS_COMMAND_TIMEOUT_MS: 250 })
  })

  it('a bad value names the variable and what was expected', () => {
    expect(() => loadConfig({ CLICKHOUSE_REQUEST_TIMEOUT_MS: 'soon' })).toThrow('invalid CLICKHOUSE_REQUEST_TIMEOUT_MS="soon": expected milliseconds')
    expect(() => loadConfig({ CLICKHOUSE_REQUEST_TIMEOUT_MS: '5' })).toThrow('expected >= 100')
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '0' })).toThrow('invalid REDIS_COMMAND_TIMEOUT_MS="0": expected >= 10')
  })
})
