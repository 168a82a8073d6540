import type { PushedBatch } from '../core/records/serving-changes.ts'
import { fork } from 'node:child_process'
import { join } from 'node:path'
import type { Faucet } from '../api/deps.ts'
import type { BusRecord } from '../core/bus/types.ts'
import { SERVICE_NODE_FLAGS } from './node-flags.ts'
import { linkOver } from './process-link.ts'
import { createApiServer } from './serve-api.ts'
import { startAuditSchedule, type AuditSchedule } from '../pipelines/verify/audit-schedule.ts'
import { afterNextChainAdvance, type Watermarks } from '../core/serving/watermarks.ts'
import type { Runtime } from './runtime.ts'

/**
 * `svc start`'s API in a process of its own, beside the pipeline's. Measured on this 2-core
 * machine, /token from a separate load process: 25-28k req/s served by the process that also
 * runs the pipeline, 35-36k by an API process alone on the same engine and world: the requests
 * no longer share an event loop, a heap and V8's inline caches with the consumers, simulators and
 * engine client. The pipeline process (this one) keeps the bus, the consumers and what they tell;
 * the API process asks it over the IPC channel (bin/process-link.ts) for what only it has.
 *
 * Told to the API process: each served advance (the long polls wake on it at once), social and
 * Solana rows, and the infrastructure faults being retried here (its /health names them).
 * Asked of this process: publishing to the bus (alerts, claims, scan requests), the bus's
 * readiness, these metrics (its /metrics exposes both processes' as one service's), and the
 * local payments faucet.
 */
export interface ServiceApi {
  /** The address it listens on, once it does; rejects if it exits before. */
  listening: Promise<string>
  advance(chainId: number, block: number, seq: number, pushed?: PushedBatch): void
  socialAdvanced(rows: number): void
  solanaAdvanced(rows: number): void
  /** Resolves if it exits without being stopped (it crashed, or was killed); never otherwise. */
  stoppedOnItsOwn: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGTERM (SIGKILL after STOP_GRACE_MS), and wait for it. */
  stop(): Promise<void>
}

/** What the API process asks this one (bin/api-process-main.ts asks, this answers). */
export const API_PROCESS_ASKS = { hello: 'hello', publish: 'publish', ensureTopics: 'ensure-topics', ping: 'ping', endOffset: 'end-offset', metrics: 'metrics', mint: 'mint' } as const

/** What this process tells the API process, and `listening`, which the API process tells this one. */
export const API_PROCESS_NEWS = { listening: 'listening', advance: 'advance', social: 'social', solana: 'solana', faults: 'faults' } as const

/** What the API process learns of this one when it starts. */
export interface ApiProcessHello {
  busKind: Runtime['bus']['kind']
  busCountsRecords: boolean
  faucet: Omit<Faucet, 'mint'> | null
}

const STOP_GRACE_MS = 20_000

const SVC_JS = join(import.meta.dirname, 'svc.js')

interface ServiceApiOptions {
  /** The environment of the API process: this one's, with the engine's and payments' variables filled in. */
  env: Record<string, string | undefined>
  faucet?: Faucet
}

/**
 * `svc start`'s API: a process of its own when the engine is one every process reaches (the
 * engine process, a server); inside this process when chDB runs in it (EMBEDDED_ENGINE=in-process:
 * one process owns its data directory).
 */
export function startServiceApi(rt: Runtime, opts: ServiceApiOptions): ServiceApi {
  return rt.config.CLICKHOUSE_URL ? startApiProcess(rt, opts) : startApiInProcess(rt, opts)
}

/** Fork `svc api-process`. */
function startApiProcess(rt: Runtime, opts: ServiceApiOptions): ServiceApi {
  const child = fork(SVC_JS, ['api-process'], {
    env: opts.env as NodeJS.ProcessEnv,
    // The service's V8 flags, and whatever node flags svc start was given (a profiler's, say),
    // but a debugger's port, which one process holds.
    execArgv: [...new Set([...SERVICE_NODE_FLAGS, ...process.execArgv.filter((flag) => !flag.startsWith('--inspect'))])],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const link = linkOver(child)
  const { bus, metrics } = rt
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))

  link.onRequest(API_PROCESS_ASKS.hello, (): ApiProcessHello => {
    const f = opts.faucet
    return { busKind: bus.kind, busCountsRecords: bus.endOffset !== undefined, faucet: f ? { network: f.network, asset: f.asset, rpcUrl: f.rpcUrl } : null }
  })
  link.onRequest(API_PROCESS_ASKS.publish, (a) => {
    const { topic, records } = a as { topic: string; records: BusRecord[] }
    return bus.publish(topic, records)
  })
  link.onRequest(API_PROCESS_ASKS.ensureTopics, (topics) => bus.ensureTopics(topics as string[]))
  link.onRequest(API_PROCESS_ASKS.ping, () => bus.ping())
  link.onRequest(API_PROCESS_ASKS.endOffset, (topic) => bus.endOffset!(topic as string))
  link.onRequest(API_PROCESS_ASKS.metrics, () => metrics.snapshot())
  link.onRequest(API_PROCESS_ASKS.mint, async (a) => {
    const { to, atomic } = a as { to: string; atomic: bigint }
    if (!opts.faucet) throw new Error('no local payments chain here')
    return opts.faucet.mint(to, atomic)
  })
  const tellFaults = () => link.tell(API_PROCESS_NEWS.faults, metrics.infraFaults.own())
  metrics.infraFaults.onChange(tellFaults)
  tellFaults()

  const listening = new Promise<string>((resolve, reject) => {
    link.onTell(API_PROCESS_NEWS.listening, (address) => resolve(address as string))
    void exited.then(({ code, signal }) => reject(new Error(`the API process exited (${signal ?? code}) before it listened`)))
  })
  listening.catch(() => {})

  let stopping = false
  // A signal to the service is a stop of both (Ctrl-C reaches the API process too): its exit
  // from then on is not a crash of it.
  const signalled = () => void (stopping = true)
  process.once('SIGINT', signalled)
  process.once('SIGTERM', signalled)
  const stoppedOnItsOwn = exited.then((how) => (stopping ? new Promise<typeof how>(() => {}) : how))

  return {
    listening,
    advance: (chainId, block, seq, pushed) => link.tell(API_PROCESS_NEWS.advance, { chainId, block, seq, pushed }),
    socialAdvanced: (rows) => link.tell(API_PROCESS_NEWS.social, rows),
    solanaAdvanced: (rows) => link.tell(API_PROCESS_NEWS.solana, rows),
    stoppedOnItsOwn,
    async stop() {
      stopping = true
      if (child.exitCode !== null || child.signalCode !== null) return
      const hard = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
      child.kill('SIGTERM')
      await exited
      clearTimeout(hard)
    },
  }
}

/** The API served by this process (its engine is chDB in this process). */
function startApiInProcess(rt: Runtime, opts: ServiceApiOptions): ServiceApi {
  const { config } = rt
  // The audit of kept views against raw rows, sampled, on its own timer within a CPU share.
  let served: Awaited<ReturnType<typeof createApiServer>> | undefined
  const audit = startConfiguredAudit(rt, () => served?.watermarks)
  const api = createApiServer(rt, { pollMs: 0, faucet: opts.faucet, audit })
  api.then((a) => (served = a), () => {})
  const listening = api.then((a) => a.app.listen({ port: config.PORT, host: config.HOST }))
  listening.catch(() => {})
  const now = (act: (a: Awaited<typeof api>) => void) => void api.then(act, () => {})
  return {
    listening,
    advance: (chainId, block, seq, pushed) => now((a) => a.watermarks.advance(chainId, block, seq, pushed)),
    socialAdvanced: (rows) => now((a) => a.watermarks.socialAdvanced(rows)),
    solanaAdvanced: (rows) => now((a) => a.deps.solana.advanced(rows)),
    stoppedOnItsOwn: new Promise(() => {}),
    async stop() {
      await audit?.stop()
      await (await api).close()
    },
  }
}

/**
 * How long an audit look waits for a chain's batch to be served before it starts anyway: a chain
 * serves a block every 2 s; a stalled chain (or none yet) must not stop the audit.
 */
const AUDIT_QUIET_MAX_MS = 5_000

/**
 * The audit of kept views against raw rows, sampled, on its own timer within a CPU share (AUDIT_SAMPLE 0: none),
 * each look started just after a chain's batch was served (`watermarks`: the API's, once it exists).
 */
export function startConfiguredAudit(rt: Runtime, watermarks: () => Watermarks | undefined): AuditSchedule | undefined {
  const { config } = rt
  const quiet = () => {
    const w = watermarks()
    return w ? afterNextChainAdvance(w, AUDIT_QUIET_MAX_MS) : Promise.resolve()
  }
  return config.AUDIT_SAMPLE > 0 ? startAuditSchedule({ ch: rt.ch, logger: rt.logger, metrics: rt.metrics, sample: config.AUDIT_SAMPLE, cpuShare: config.AUDIT_CPU_SHARE, quiet }) : undefined
}
