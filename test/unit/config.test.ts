import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../core/config.ts'

describe('loadConfig()', () => {
  it('loadConfig() gives the embedded defaults on an empty environment', () => {
    const c = loadConfig({})
    expect(c.PORT).toBe(8080)
    expect(c.HOST).toBe('127.0.0.1')
    expect(c.DATA_DIR).toBe('./data')
    expect(c.mode).toEqual({ clickhouse: 'chdb', bus: 'memory', store: 'memory' })
    expect(c.simulatorOn).toBe(true)
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('loadConfig() switches modes from the variables that name them', () => {
    const c = loadConfig({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', KAFKA_BROKERS: 'a:1, b:2', REDIS_URL: 'redis://127.0.0.1:6379', CHAIN_4663_RPC_URL: 'http://127.0.0.1:8545' })
    expect(c.mode).toEqual({ clickhouse: 'server', bus: 'kafka', store: 'redis' })
    expect(c.KAFKA_BROKERS).toEqual(['a:1', 'b:2'])
    expect(c.simulatorOn).toBe(false)
  })

  it('loadConfig() runs the local payments chain unless a facilitator or payments RPC is named', () => {
    expect(loadConfig({}).localPaymentsChainOn).toBe(true)
    expect(loadConfig({ X402_FACILITATOR_URL: 'https://facilitator.example' }).localPaymentsChainOn).toBe(false)
    expect(loadConfig({ X402_NETWORK_RPC_URL: 'http://127.0.0.1:8545' }).localPaymentsChainOn).toBe(false)
    expect(loadConfig({ X402_NETWORK_RPC_URL: 'http://127.0.0.1:8545', X402_LOCAL_CHAIN: 'on' }).localPaymentsChainOn).toBe(true)
    expect(loadConfig({ X402_LOCAL_CHAIN: 'off' }).localPaymentsChainOn).toBe(false)
  })

  it.each(['SVC_ADMIN_TOKEN', 'X402_FACILITATOR_PRIVATE_KEY', 'X402_PAYER_PRIVATE_KEY'])('loadConfig() never echoes the value of the secret %s', (name) => {
    const secret = 'secret-0123456789abcdef'.slice(0, name === 'SVC_ADMIN_TOKEN' ? 8 : 23)
    expect(() => loadConfig({ [name]: secret })).toThrow(`invalid ${name}=<hidden>: expected`)
    expect(() => loadConfig({ [name]: secret })).not.toThrow(secret)
  })

  it('loadConfig() reads TRUST_PROXY as hops or a list of proxy addresses', () => {
    expect(loadConfig({}).TRUST_PROXY).toBeUndefined()
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1)
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY).toBe('10.0.0.0/8,127.0.0.1')
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow('invalid TRUST_PROXY="everyone": expected a number of hops or a comma list of proxy addresses/CIDRs')
  })

  it.each([
    ['PORT', 'abc', /PORT="abc": expected a port number/],
    ['PORT', '70000', /PORT="70000": expected a port 0-65535/],
    ['KAFKA_BROKERS', 'nohost', /KAFKA_BROKERS="nohost": expected a comma list of host:port/],
    ['CHAIN_4663_WETH', '0x12', /CHAIN_4663_WETH="0x12": expected a comma list of 0x addresses/],
    ['SIMULATOR', 'maybe', /SIMULATOR="maybe": expected on or off/],
    ['CLICKHOUSE_URL', 'not a url', /CLICKHOUSE_URL="not a url": expected a URL/],
    ['CHAIN_4663_CONFIRMATIONS', '-1', /CHAIN_4663_CONFIRMATIONS="-1": expected >= 0/],
  ])('loadConfig() names %s when it is %s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(message)
  })
})

describe('svc CLI', () => {
  it('a bad environment variable stops start-up with a one-line reason', () => {
    const r = spawnSync(process.execPath, ['bin/svc.js', 'start'], { env: { ...process.env, PORT: 'eighty' }, encoding: 'utf8', timeout: 30_000 })
    expect(r.status).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe('svc: invalid PORT="eighty": expected a port number')
  })

  it('an unknown command prints the usage and exits 2', () => {
    const r = spawnSync(process.execPath, ['bin/svc.js', 'frobnicate'], { encoding: 'utf8', timeout: 30_000 })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('usage: svc <command>')
  })
})
