import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SERVICE_NODE_FLAGS, startedWithServiceFlags } from '../../bin/node-flags.ts'

const root = join(import.meta.dirname, '../..')
const flags = SERVICE_NODE_FLAGS.join(' ')

/**
 * V8 reads the young generation's size only when a process starts: every way of starting the
 * service passes the flags (bin/node-flags.ts), and they take effect.
 */
describe('the service V8 flags', () => {
  it("are on package.json's scripts, bin/svc.js's interpreter line and every k8s command", () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts.start).toBe(`node ${flags} bin/svc.js start`)
    expect(scripts.svc).toBe(`node ${flags} bin/svc.js`)
    expect(readFileSync(join(root, 'bin/svc.js'), 'utf8').split('\n')[0]).toBe(`#!/usr/bin/env -S node ${flags}`)
    const manifests = readdirSync(join(root, 'infra/k8s')).filter((f) => f.endsWith('.yaml'))
    let commands = 0
    for (const f of manifests) {
      for (const m of readFileSync(join(root, 'infra/k8s', f), 'utf8').matchAll(/command: \[([^\]]*bin\/svc\.js[^\]]*)\]/g)) {
        commands++
        expect(m[1], `${f}: ${m[1]}`).toContain(SERVICE_NODE_FLAGS.map((x) => `"${x}"`).join(', '))
      }
    }
    expect(commands).toBeGreaterThanOrEqual(5)
  })

  it('are told apart from a process started without them, and enlarge its young generation', () => {
    expect(startedWithServiceFlags([...SERVICE_NODE_FLAGS])).toBe(true)
    expect(startedWithServiceFlags(['--max-semi-space-size=64'])).toBe(false)
    const youngMb = (args: string[]) => {
      const r = spawnSync(process.execPath, [...args, '-e', "console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)"], { encoding: 'utf8' })
      return Number(r.stdout) / 2 ** 20
    }
    expect(youngMb([...SERVICE_NODE_FLAGS])).toBeGreaterThan(youngMb([]))
  })
})
