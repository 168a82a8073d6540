import { execFileSync, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { requirePythonToolsBin } from '../setup/services.ts'
import { tempDir } from '../setup/temp.ts'

const dir = join(import.meta.dirname, '../../infra/k8s')
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f))
const bin = requirePythonToolsBin()

interface Container {
  command: string[]
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> }
  readinessProbe?: { httpGet?: { path: string } }
  startupProbe?: { httpGet?: { path: string } }
  ports?: Array<{ name: string; containerPort: number }>
}
interface Resource {
  kind: string
  metadata: { name: string }
  spec: { replicas?: number; template?: { spec: { containers: Container[] } }; scaleTargetRef?: { kind: string; name: string }; minReplicas?: number; maxReplicas?: number }
  data?: Record<string, string>
}

/** Every document of every manifest, read by PyYAML from the same venv. */
const resources: Resource[] = JSON.parse(
  execFileSync(join(bin, 'python'), ['-c', 'import json, sys, yaml; print(json.dumps([d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]))', ...files], { encoding: 'utf8' }),
)

describe('infra/k8s manifests', () => {
  it('validate offline with kubernetes-validate --strict, which refuses a broken one', () => {
    const r = spawnSync(join(bin, 'kubernetes-validate'), ['--strict', '--quiet', ...files], { encoding: 'utf8' })
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0)
    const broken = tempDir()
    try {
      const f = join(broken.path, 'broken.yaml')
      writeFileSync(f, readFileSync(join(dir, 'api.yaml'), 'utf8').replace('replicas: 2', 'replicas: two').replace('containerPort: 8080', 'containerPort: 8080\n              portName: http'))
      const bad = spawnSync(join(bin, 'kubernetes-validate'), ['--strict', '--quiet', f], { encoding: 'utf8' })
      expect(bad.status).not.toBe(0)
    } finally {
      broken.cleanup()
    }
  })

  it('run every role (api, each pipeline, sim) with resources and /health probes, and autoscale the api', () => {
    const deployments = resources.filter((r) => r.kind === 'Deployment')
    // `node <flags> bin/svc.js <role...>`: the role after the entry point.
    const commands = deployments.map((d) => { const c = d.spec.template!.spec.containers[0]!.command; return c.slice(c.indexOf('bin/svc.js') + 1).join(' ') })
    expect(commands.sort()).toEqual(['api', 'pipeline alerts', 'pipeline chain-4663', 'pipeline prices', 'pipeline social', 'sim'])
    for (const d of deployments) {
      const c = d.spec.template!.spec.containers[0]!
      expect(c.resources?.requests?.cpu, d.metadata.name).toBeTruthy()
      expect(c.resources?.limits?.memory, d.metadata.name).toBeTruthy()
      expect(c.readinessProbe?.httpGet?.path, d.metadata.name).toBe('/health')
      expect(c.startupProbe?.httpGet?.path, d.metadata.name).toBe('/health')
    }
    // The chain pipeline is one ordered consumer.
    expect(deployments.find((d) => d.metadata.name === 'svc-pipeline-chain-4663')!.spec.replicas).toBe(1)
    const hpa = resources.filter((r) => r.kind === 'HorizontalPodAutoscaler')
    expect(hpa.map((h) => h.spec.scaleTargetRef)).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'svc-api' }])
    expect(hpa[0]!.spec.maxReplicas).toBeGreaterThan(hpa[0]!.spec.minReplicas!)
    // The roles without an API serve their probes on HEALTH_PORT.
    const config = resources.find((r) => r.kind === 'ConfigMap')!.data!
    for (const d of deployments.filter((x) => x.metadata.name !== 'svc-api')) {
      expect(d.spec.template!.spec.containers[0]!.ports).toEqual([{ name: 'health', containerPort: Number(config.HEALTH_PORT) }])
    }
  })
})
