import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The cluster ids `infra/kafka.sh` formats the broker's storage with, checked by Kafka itself:
 * `kafka-storage format`'s argument parser and Kafka's Uuid parser, in the jars the script
 * installed. A base64url id beginning with '-' was read as an option and failed one start in 64.
 */
const root = join(import.meta.dirname, '../..')
const libs = join(process.env.SVC_INFRA_CACHE ?? join(homedir(), '.cache/svc-infra'), 'kafka/libs')
const parser = join(root, 'test/setup/java/ParseClusterIds.java')

function parse(ids: string[]) {
  if (!existsSync(libs)) throw new Error(`no Kafka jars in ${libs}: run bash infra/kafka.sh install`)
  return spawnSync('java', ['-cp', `${libs}/*`, parser, ...ids], { encoding: 'utf8', timeout: 60_000 })
}

describe('infra/kafka/cluster-id.mjs', () => {
  it('draws 1,000 cluster ids that kafka-storage format\'s argument parsing all accepts', { timeout: 60_000 }, () => {
    const ids = execFileSync(process.execPath, [join(root, 'infra/kafka/cluster-id.mjs'), '1000'], { encoding: 'utf8' }).trim().split('\n')
    expect(ids.length).toBe(1000)
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/)
    const r = parse(ids)
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('accepted 1000')
    expect(r.status).toBe(0)
  })

  it('the parser refuses an id beginning with \'-\' (what a plain random base64url id could be)', { timeout: 60_000 }, () => {
    const r = parse(['-bCdEfGhIjKlMnOpQrStUw'])
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('argument --cluster-id/-t: expected one argument')
  })
})
