import type { PushedBatch } from '../core/records/serving-changes.ts'
import { ConfigError, type Config } from '../core/config.ts'
import { createForwardingBus } from '../core/bus/forwarding-bus.ts'
import type { BusRecord } from '../core/bus/types.ts'
import type { InfraFault } from '../core/infra-faults.ts'
import type { PeerMetrics } from '../core/metrics.ts'
import { API_PROCESS_ASKS as ASKS, API_PROCESS_NEWS as NEWS, startConfiguredAudit, type ApiProcessHello } from './api-process.ts'
import { linkOver } from './process-link.ts'
import { createRuntime } from './runtime.ts'
import { createApiServer } from './serve-api.ts'
import { onShutdown } from './shutdown.ts'

/**
 * `svc api-process`: the API of `svc start`, forked by it (bin/api-process.ts) and linked to it by
 * the IPC channel. It serves every endpoint from its own kept state, reads the engine directly,
 * and runs the scheduled audit (an engine-bound loop beside the requests, as in `svc api`);
 * publishing, the bus's readiness, the pipeline's metrics and faults and the faucet it gets from
 * the pipeline process. Not started by hand.
 */
export async function runApiProcess(config: Config): Promise<void> {
  if (!process.send) throw new ConfigError('svc api-process is the API process that svc start forks; run svc start (or svc api beside the pipeline roles)')
  const link = linkOver(process as unknown as Parameters<typeof linkOver>[0])
  // Without its pipeline process, it has nothing to serve: it stops with it, whatever stopped that.
  process.once('disconnect', () => process.exit(1))
  const hello = await link.request<ApiProcessHello>(ASKS.hello)
  const bus = createForwardingBus({
    kind: hello.busKind,
    countsRecords: hello.busCountsRecords,
    publish: (topic: string, records: BusRecord[]) => link.request(ASKS.publish, { topic, records }),
    ensureTopics: (topics) => link.request(ASKS.ensureTopics, topics),
    ping: () => link.request(ASKS.ping),
    endOffset: (topic) => link.request(ASKS.endOffset, topic),
  })
  const rt = await createRuntime(config, 'api', { bus })
  rt.metrics.addPeer(() => link.request<PeerMetrics>(ASKS.metrics))
  link.onTell(NEWS.faults, (faults) => rt.metrics.infraFaults.setPeer(faults as InfraFault[]))
  const faucet = hello.faucet ? { ...hello.faucet, mint: (to: string, atomic: bigint) => link.request<{ transaction: string; balance: bigint }>(ASKS.mint, { to, atomic }) } : undefined
  // The audit of kept views against raw rows, sampled, on its own timer within a CPU share.
  let served: Awaited<ReturnType<typeof createApiServer>> | undefined
  const audit = startConfiguredAudit(rt, () => served?.watermarks)
  const api = (served = await createApiServer(rt, { pollMs: 0, faucet, audit }))
  link.onTell(NEWS.advance, (a) => {
    const { chainId, block, seq, pushed } = a as { chainId: number; block: number; seq: number; pushed?: PushedBatch }
    api.watermarks.advance(chainId, block, seq, pushed)
  })
  link.onTell(NEWS.social, (rows) => api.watermarks.socialAdvanced(rows as number))
  link.onTell(NEWS.solana, (rows) => api.deps.solana.advanced(rows as number))
  onShutdown(rt, [() => api.close(), () => audit?.stop()])
  const address = await api.app.listen({ port: config.PORT, host: config.HOST })
  link.tell(NEWS.listening, address)
}
