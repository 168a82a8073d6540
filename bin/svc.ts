import type { PushedBatch } from '../core/records/serving-changes.ts'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig, type Config } from '../core/config.ts'
import pino from 'pino'
import { superviseEngine } from '../infra/engine/supervise.ts'
import { createClickHouse } from '../core/clickhouse.ts'
import { startAlertsWorker } from '../pipelines/alerts/alerts-worker.ts'
import { startScansRole } from './scans-role.ts'
import { createChainProcessor, type ChainProcessor, type ChainProcessorDeps } from '../pipelines/process/chain-processor.ts'
import { createPriceProcessor } from '../pipelines/process/price-processor.ts'
import { createClaimsProcessor, publishClaims } from '../pipelines/process/claims-processor.ts'
import { claimRow, Leaderboard } from '../products/wallet/leaderboard-claim.ts'
import { createSocialProcessor } from '../pipelines/process/social-processor.ts'
import { createSolanaProcessor } from '../pipelines/process/solana-processor.ts'
import { createSolanaSimSource, type SolanaSimSource } from '../pipelines/sources/solana-sim-source.ts'
import { createCallGrader, type CallGrader } from '../pipelines/social/grade-calls.ts'
import { catchUpCallerState } from '../products/social/caller-refresh.ts'
import { createRpcSource, resolveRpcStart, type RpcSource } from '../pipelines/sources/rpc/rpc-source.ts'
import { createSimSource, resolveSimStart, type SimSource, type SocialCounts } from '../pipelines/sources/sim-source.ts'
import { bootSimWorker, createSimSourceInWorker } from '../pipelines/sources/sim-in-worker.ts'
import { trackConsumption, type ConsumptionTracker } from '../pipelines/sim/consumption.ts'
import { socialCheckpointPath, writeSocialCheckpoint, type SocialCheckpoint } from '../pipelines/sim/social-checkpoint.ts'
import { namespaced, TOPICS } from '../core/bus/topics.ts'
import { migrate } from '../sql/migrate.ts'
import { createKeyRegistry } from '../api/access/keys.ts'
import { createRedisStore } from '../core/store/redis-store.ts'
import { createSocialServing } from '../products/social/social-serving.ts'
import { createTokenServing } from '../products/token/token-serving.ts'
import { afterNextChainAdvance, createWatermarks, type Watermarks } from '../core/serving/watermarks.ts'
import { PLAN_NAMES, type PlanName } from '../core/plans.ts'
import { runReadOnlySql } from '../sql/read-only.ts'
import { followedContracts } from './follow.ts'
import { simLaunchpads } from '../pipelines/sim/launchpads.ts'
import { createRuntime, type Runtime } from './runtime.ts'
import { startRoleHealth } from './role-health.ts'
import { startLocalChain, startLocalPayments } from './local-payments.ts'
import { commandPay } from './pay.ts'
import { commandVerify } from './verify.ts'
import { createApiServer } from './serve-api.ts'
import { faultHooks } from './fault-hooks.ts'
import { SERVICE_NODE_FLAGS, startedWithServiceFlags } from './node-flags.ts'
import { onTaskFailure } from './stop-role.ts'
import { simCommandStart } from './sim-start.ts'
import { refusePrivateEngine } from './shared-engine.ts'
import { isPermanentPublishError } from '../core/bus/publish-errors.ts'
import { commandEngine } from './engine-role.ts'
import { onShutdown } from './shutdown.ts'
import { runApiProcess } from './api-process-main.ts'
import { startServiceApi } from './api-process.ts'

const USAGE = `usage: svc <command>
  start                 embedded, all in one: simulators (each chain without an RPC URL), pipelines, alerts, API, MCP
                        and the local payments chain (unless X402_FACILITATOR_URL or X402_NETWORK_RPC_URL is set)
  api                   the API and MCP server only (publishes test alerts; delivery is the alerts role)
  pipeline chain-4663   the chain-4663 processor only  [--exit-at-block N]
  pipeline source-4663  the chain-4663 JSON-RPC source only (needs CHAIN_4663_RPC_URL)
  pipeline chain-5042   the chain-5042 processor only (launch attribution, /arc)  [--exit-at-block N]
  pipeline source-5042  the chain-5042 JSON-RPC source only (needs CHAIN_5042_RPC_URL)
  pipeline prices       the ETH/USD candle and leaderboard-claims processors only
  pipeline social       the social processor (posts, follows, room sightings, mirrors) and the call grader
  pipeline solana       the Solana venue processor (universe, SOL/USD candles, trades)
  pipeline alerts       the alert producers and the webhook delivery worker
  pipeline scans        the structure and forensics scan jobs and the daily scans of watched tokens
  sim                   publish simulated chain-4663 blocks (and, without --until, the Solana venue)  [--from N] [--until N] [--genesis UNIX_SECONDS] [--chain 4663|5042]
  engine                one ClickHouse engine serving DATA_DIR over HTTP on 127.0.0.1 for the other roles; prints
                        CLICKHOUSE_URL/USER/PASSWORD  [--http-port N (18123)] [--tcp-port N (19000)] (0: any free port)
  migrate               apply sql/migrations
  sql "<query>"         run one read-only query and print JSON rows
  verify                audit kept views against their raw rows; exit 1 on drift  [--sample F] [--seed N] [--view NAME]... [--repair] [--base URL] [--json]
  keys create <plan> | list | revoke <prefix>   subscription keys (plans: founders, signal_feed, desk)
  roster import <file.json>   load an operator's leaderboard (the tracked roster): {"claims":[...]} or an array of claims
  pay <path|url>        call a paid endpoint, paying over x402  [--fund USDC] [--max USDC] [--base URL] [--method M] [--data JSON]`

/** The runtime of a role without an API, with its /health and /metrics on HEALTH_PORT (closed with it). */
async function createRoleRuntime(config: Config, role: string): Promise<Runtime> {
  const rt = await createRuntime(config, role)
  const health = await startRoleHealth(rt, role)
  const close = rt.close
  return {
    ...rt,
    async close() {
      health?.closeAllConnections()
      await new Promise<void>((resolve) => (health ? health.close(() => resolve()) : resolve()))
      await close()
    },
  }
}

type ChainId = 4663 | 5042

/** How a processor paces its live batches (batch by time); by default, chain 5042's CHAIN_5042_FLUSH_MS. */
type Pacing = Pick<ChainProcessorDeps, 'flushEveryMs' | 'flushAfter'>

/**
 * Chain 5042's live batches in `svc start`: about every CHAIN_5042_FLUSH_MS, each started just
 * after one of chain 4663's was served (its pause shortened by chain 4663's block interval, which
 * the wait for that batch makes up). Paced by its pause alone, a batch every 4.1 s drifted
 * through chain 4663's 2 s grid (about 100 ms a cycle) and ran beside one of its batches, both
 * slower, every twentieth or so (stop 68). With CHAIN_5042_FLUSH_MS 0, a batch per block.
 */
function arcPacing(config: Config, watermarks: Watermarks): Pacing {
  const flush = config.CHAIN_5042_FLUSH_MS
  if (flush === 0) return { flushEveryMs: 0 }
  // Chain 4663's block interval (the simulator's); a batch of it is waited for a quarter longer at most.
  const blockMs = config.SIMULATOR_BLOCK_SECONDS * 1000
  return { flushEveryMs: Math.max(0, flush - blockMs), flushAfter: () => afterNextChainAdvance(watermarks, blockMs * 1.25, 4663) }
}

async function startProcessor(rt: Runtime, chainId: ChainId, onAdvance?: ChainProcessorDeps['onAdvance'], pushBatches = false, pacing?: Pacing): Promise<ChainProcessor> {
  const processor = createChainProcessor({
    ch: rt.ch,
    bus: rt.bus,
    logger: rt.logger,
    metrics: rt.metrics,
    chainId,
    namespace: rt.config.BUS_NAMESPACE,
    maxBatchBlocks: rt.config.PIPELINE_BATCH_BLOCKS,
    ...(pacing ?? { flushEveryMs: chainId === 5042 ? rt.config.CHAIN_5042_FLUSH_MS : 0 }),
    follow: followedContracts(rt.config, chainId),
    tokenFactsEntries: rt.config.SERVING_CACHE_ENTRIES,
    onAdvance,
    pushBatches,
    sinkHooks: faultHooks(),
  })
  await processor.start()
  return processor
}

/**
 * The call grader's pause between passes when the chain and social pipelines of its process tell
 * it what changed: a safety net, the passes run when they can grade something (the grader on a
 * 2 s timer was about 30 passes a minute at 20 ms of engine time each on an idle world).
 */
const GRADER_TOLD_INTERVAL_MS = 30_000

/** A chain's JSON-RPC settings (CHAIN_<id>_RPC_URL, _START_BLOCK, _CONFIRMATIONS). */
function chainRpc(c: Config, chainId: ChainId) {
  return chainId === 4663
    ? { rpcUrl: c.CHAIN_4663_RPC_URL, startBlock: c.CHAIN_4663_START_BLOCK, confirmations: c.CHAIN_4663_CONFIRMATIONS }
    : { rpcUrl: c.CHAIN_5042_RPC_URL, startBlock: c.CHAIN_5042_START_BLOCK, confirmations: c.CHAIN_5042_CONFIRMATIONS }
}

/** The JSON-RPC source of a chain, resuming after the last ingested block. */
async function startRpcSource(rt: Runtime, chainId: ChainId): Promise<RpcSource> {
  const c = rt.config
  const r = chainRpc(c, chainId)
  const attribution = followedContracts(c, chainId).attribution
  const source = createRpcSource({
    bus: rt.bus, logger: rt.logger, chainId, rpcUrl: r.rpcUrl!, namespace: c.BUS_NAMESPACE,
    confirmations: r.confirmations, start: await resolveRpcStart(rt.ch, chainId, r.startBlock),
    pollMs: c.CHAIN_POLL_MS,
    attribution: attribution ? { addresses: [...new Set([...attribution.pads, ...attribution.factories])] } : undefined,
  })
  source.run().catch(onTaskFailure(rt.logger, 'rpc source stopped'))
  return source
}

/**
 * Social checkpoints of the simulator, kept in DATA_DIR. With `tracker` (the in-process bus)
 * records count as stored once the social pipeline in this process has consumed them;
 * otherwise once the (durable) bus took them.
 */
function simCheckpoints(config: Config, tracker?: ConsumptionTracker) {
  const path = socialCheckpointPath(config.DATA_DIR, 4663)
  const topics: Record<keyof SocialCounts, string> = {
    posts: namespaced(config.BUS_NAMESPACE, TOPICS.socialPosts),
    follows: namespaced(config.BUS_NAMESPACE, TOPICS.socialFollows),
    sightings: namespaced(config.BUS_NAMESPACE, TOPICS.tgSightings),
    mirrors: namespaced(config.BUS_NAMESPACE, TOPICS.callerMirrors),
  }
  return {
    path,
    // A write that fails (EMFILE, ENOSPC) throws: the simulator keeps the checkpoint and retries it.
    save: (genesis: number) => (cp: Pick<SocialCheckpoint, 'block' | 'state'>) =>
      writeSocialCheckpoint(path, { version: 1, chainId: 4663, seed: config.SIMULATOR_SEED, genesis, blockSeconds: config.SIMULATOR_BLOCK_SECONDS, ...cp }),
    durable: tracker
      ? async (published: SocialCounts) => {
          for (const k of Object.keys(topics) as Array<keyof SocialCounts>) {
            if (published[k] === 0) continue
            const consumed = await tracker.consumed(topics[k])
            if (consumed === null || consumed < published[k]) return false
          }
          return true
        }
      : undefined,
  }
}

/** The simulated Solana venue, paced at SOLANA_SIM_TRADES_PER_SECOND; null when that is 0. */
function startSolanaSim(rt: Runtime, startWhen?: () => boolean): SolanaSimSource | null {
  const c = rt.config
  if (c.SOLANA_SIM_TRADES_PER_SECOND === 0) return null
  const source = createSolanaSimSource({
    bus: rt.bus, ch: rt.ch, logger: rt.logger, metrics: rt.metrics, namespace: c.BUS_NAMESPACE, seed: c.SIMULATOR_SEED,
    tradesPerSecond: c.SOLANA_SIM_TRADES_PER_SECOND, backfillSeconds: Math.round(c.SIMULATOR_BACKFILL_HOURS * 3600), startWhen,
  })
  source.run().catch(onTaskFailure(rt.logger, 'solana venue simulator stopped'))
  return source
}

async function commandStart(config: Config): Promise<void> {
  const localChain = startLocalChain(config)
  // The simulators' worker threads load while the engine starts (sim-in-worker.ts).
  const simBoot4663 = config.simulatorOn && !config.CHAIN_4663_RPC_URL ? bootSimWorker() : undefined
  const simBoot5042 = config.simulator5042On && !config.CHAIN_5042_RPC_URL ? bootSimWorker() : undefined
  let engine: Awaited<ReturnType<typeof startEmbeddedEngine>>
  let runtime: Runtime
  try {
    engine = await startEmbeddedEngine(config)
    // Everything configured from the environment from here on sees the engine's variables.
    if (engine) config = loadConfig({ ...process.env, ...engine.env })
    runtime = await createRuntime(config, 'start')
  } catch (err) {
    await localChain?.stop()
    throw err
  }
  const env = { ...process.env, ...engine?.env }
  // The engine stops after everything that writes to it has closed.
  const created: Runtime = engine ? { ...runtime, close: async () => { await runtime.close(); await engine.stop() } } : runtime
  // On the in-process bus, published social records are safe only once consumed: track that.
  const tracker = created.bus.kind === 'memory' ? trackConsumption(created.bus) : undefined
  const base: Runtime = tracker ? { ...created, bus: tracker.bus } : created
  const payments = await startLocalPayments(localChain, config, env, base.logger)
  const rt: Runtime = payments ? { ...base, config: payments.config } : base
  config = rt.config
  // The API, in a process of its own (bin/api-process.ts), started now: it loads while the
  // pipeline starts, and is told each advance below.
  const api = startServiceApi(rt, { env: { ...env, ...payments?.env }, faucet: payments?.faucet })
  // The alerts worker's view of the served state (the API process keeps its own), following this
  // process's batches as they are served.
  const watermarks = createWatermarks(rt.ch, [4663, 5042], 0)
  await watermarks.refresh()
  const serving = {
    advance(chainId: number, block: number, seq: number, pushed?: PushedBatch) {
      watermarks.advance(chainId, block, seq, pushed)
      api.advance(chainId, block, seq, pushed)
    },
    socialAdvanced(rows: number) {
      watermarks.socialAdvanced(rows)
      api.socialAdvanced(rows)
    },
  }
  // The call grader (started below) is told what changed by the chain and social pipelines.
  let grader: CallGrader | undefined
  // The simulators (started below) pace their catch-up by what each chain ingested: told as it moves.
  let sim: SimSource | RpcSource | undefined
  let arcSource: SimSource | RpcSource | undefined
  // Its batches are pushed to the API process and the alerts worker (the feed's followers here).
  const processor = await startProcessor(rt, 4663, (b, seq, served, pushed) => {
    serving.advance(4663, b, seq, pushed)
    grader?.changed({ kind: 'chain', ...served })
    if (sim && 'ingestedMoved' in sim) sim.ingestedMoved()
  }, true)
  const arcProcessor = await startProcessor(rt, 5042, (b, seq) => {
    serving.advance(5042, b, seq)
    if (arcSource && 'ingestedMoved' in arcSource) arcSource.ingestedMoved()
  }, false, arcPacing(config, watermarks))
  const prices = createPriceProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS })
  await prices.start()
  const claims = createClaimsProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE })
  await claims.start()
  const social = createSocialProcessor({
    ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS,
    onInserted: (n) => serving.socialAdvanced(n),
    onCallerInputs: () => grader?.changed({ kind: 'calls' }),
  })
  await social.start()
  const solana = createSolanaProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS, onTrades: (n) => api.solanaAdvanced(n) })
  await solana.start()
  const alerts = await startAlertsWorker({
    ch: rt.ch, bus: rt.bus, store: rt.store, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, watermarks,
    tokens: createTokenServing({ ch: rt.ch, watermarks, logger: rt.logger, maxEntries: config.SERVING_CACHE_ENTRIES, answersRequests: false }),
    social: createSocialServing({ ch: rt.ch, watermarks, logger: rt.logger, maxEntries: config.SERVING_CACHE_ENTRIES }),
  })
  const scans = await startScansRole(rt)
  // A data dir from before caller_state: build it once before the grader's passes keep it.
  await catchUpCallerState(rt.ch, rt.logger)
  grader = createCallGrader({ ch: rt.ch, logger: rt.logger, intervalMs: GRADER_TOLD_INTERVAL_MS, onGraded: (n) => serving.socialAdvanced(n) })
  grader.start()
  // The Solana venue starts a minute after the simulated chain has caught up with its backfill,
  // so a fresh `svc start` serves the chain and social products (graded calls) first.
  let chainCaughtUp = () => true
  if (config.CHAIN_4663_RPC_URL) {
    sim = await startRpcSource(rt, 4663)
  } else if (config.simulatorOn) {
    const cps = simCheckpoints(config, tracker)
    const start = await resolveSimStart(rt.ch, 4663, config.SIMULATOR_BLOCK_SECONDS, config.simulatorBackfillBlocks, { path: cps.path, seed: config.SIMULATOR_SEED })
    // In a worker thread: generating the world is most of a backfill's work in this process.
    sim = createSimSourceInWorker({
      logName: 'svc-start', boot: simBoot4663, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, namespace: config.BUS_NAMESPACE, seed: config.SIMULATOR_SEED, blockSeconds: config.SIMULATOR_BLOCK_SECONDS, start,
      // One batch ahead: a stop during the backfill drains what is published (the social
      // checkpoint is stored once the chain has ingested every block published), so what is
      // ahead bounds how long a stop takes. Two batches ahead gave full batches but a stop of
      // 15-20 s here, and CI's harness killed one before its checkpoint was stored.
      ingested: () => processor.watermark(),
      maxAheadBlocks: Math.max(2000, config.PIPELINE_BATCH_BLOCKS),
      checkpoints: { save: cps.save(start.genesis), durable: cps.durable },
    })
    sim.run().catch((err) => rt.logger.error({ err }, 'simulator stopped'))
    let caughtUpAt = 0
    chainCaughtUp = () => {
      if (!caughtUpAt && processor.watermark() >= Math.floor((Date.now() / 1000 - start.genesis) / config.SIMULATOR_BLOCK_SECONDS) - 10) caughtUpAt = Date.now()
      return caughtUpAt > 0 && Date.now() - caughtUpAt >= 60_000
    }
  }
  // Chain 5042: over JSON-RPC when it has an RPC URL, else simulated (its own world, no social or prices).
  if (config.CHAIN_5042_RPC_URL) {
    arcSource = await startRpcSource(rt, 5042)
  } else if (config.simulator5042On) {
    const seed = config.SIMULATOR_SEED + 5042
    const start = await resolveSimStart(rt.ch, 5042, config.SIMULATOR_BLOCK_SECONDS, config.simulatorBackfillBlocks)
    const source = createSimSourceInWorker({
      logName: 'svc-start', boot: simBoot5042, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 5042, namespace: config.BUS_NAMESPACE, seed, blockSeconds: config.SIMULATOR_BLOCK_SECONDS, start,
      social: false, prices: false, launchpads: simLaunchpads(5042),
      ingested: () => arcProcessor.watermark(),
      // Two batches ahead: with one, its backfill took 20-25 s longer (no checkpoint to drain here).
      maxAheadBlocks: Math.max(2000, 2 * config.PIPELINE_BATCH_BLOCKS),
    })
    arcSource = source
    // Both backfills run side by side: measured on 2 cores, the world was served 10-15 s sooner
    // than with chain 5042's waiting for chain 4663 to be live (docs/measurements.md).
    source.run().catch((err) => rt.logger.error({ err }, 'chain-5042 simulator stopped'))
  }
  const solanaSim = config.simulatorOn ? startSolanaSim(rt, () => chainCaughtUp()) : null
  // Chain 5042 stops beside chain 4663's drain (nothing of its to drain): the engine is 4663's sooner.
  const stopArc = async () => {
    await arcSource?.stop()
    await arcProcessor.stop()
  }
  onShutdown(rt, [() => Promise.all([sim?.stop(), stopArc()]).then(() => {}), () => solanaSim?.stop(), () => processor.stop(), () => prices.stop(), () => claims.stop(), () => social.stop(), () => solana.stop(), () => grader?.stop(), () => alerts.stop(), () => scans.stop(), () => api.stop(), () => watermarks.stop(), () => payments?.stop()])
  // An API process that stops on its own (crashed, killed) stops the service: a supervisor restarts it whole.
  void api.stoppedOnItsOwn.then(({ code, signal }) => {
    process.exitCode = 1
    rt.logger.error({ code, signal }, 'the API process stopped: stopping the service')
    process.kill(process.pid, 'SIGTERM')
  })
  const address = await api.listening
  rt.logger.info({ address, docs: `${address}/docs`, simulator: config.simulatorOn }, 'svc started (embedded)')
  warnWithoutServiceFlags(rt)
}

/** Said once at start when the process lacks the service's V8 flags (started as plain `node bin/svc.js`). */
function warnWithoutServiceFlags(rt: Runtime): void {
  if (!startedWithServiceFlags()) rt.logger.warn({ flags: SERVICE_NODE_FLAGS.join(' ') }, 'started without the service V8 flags: serving under load is slower (npm start and bin/svc.js pass them)')
}

/**
 * The embedded default's engine (EMBEDDED_ENGINE=process, no CLICKHOUSE_URL): svc engine's
 * process on DATA_DIR, on free loopback ports, supervised by this process (it dies with it), and
 * the configuration pointing the service at it, with the analyst user for the SQL door.
 */
async function startEmbeddedEngine(config: Config): Promise<{ env: Record<string, string>; stop(): Promise<void> } | null> {
  if (config.CLICKHOUSE_URL || config.EMBEDDED_ENGINE !== 'process') return null
  const logger = pino({ name: 'svc-engine', level: config.LOG_LEVEL }, pino.destination({ dest: 2, sync: true }))
  const engine = await superviseEngine({ dataDir: config.DATA_DIR, database: config.CLICKHOUSE_DATABASE, httpPort: 0, tcpPort: 0, reserved: [config.PORT], logger })
  const env = {
    CLICKHOUSE_URL: engine.url,
    CLICKHOUSE_USER: engine.user,
    CLICKHOUSE_PASSWORD: engine.credentials.svc,
    CLICKHOUSE_ANALYST_USER: 'analyst',
    CLICKHOUSE_ANALYST_PASSWORD: engine.credentials.analyst,
  }
  return { env, stop: () => engine.stop() }
}

async function commandApi(config: Config): Promise<void> {
  refusePrivateEngine(config, 'api')
  const rt = await createRuntime(config, 'api')
  const api = await createApiServer(rt)
  onShutdown(rt, [() => api.close()])
  const address = await api.app.listen({ port: config.PORT, host: config.HOST })
  rt.logger.info({ address }, 'api listening')
  warnWithoutServiceFlags(rt)
}

async function commandPipeline(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'exit-at-block': { type: 'string' } } })
  const sourceOf = /^source-(4663|5042)$/.exec(positionals[0] ?? '')
  if (sourceOf) {
    const chainId = Number(sourceOf[1]) as ChainId
    if (!chainRpc(config, chainId).rpcUrl) throw new ConfigError(`pipeline source-${chainId} needs CHAIN_${chainId}_RPC_URL`)
    const rt = await createRoleRuntime(config, `pipeline-source-${chainId}`)
    const source = await startRpcSource(rt, chainId)
    onShutdown(rt, [() => source.stop()])
    return
  }
  if (positionals[0] === 'social') {
    const rt = await createRoleRuntime(config, 'pipeline-social')
    // The chain is another process's: its passes run on the timer, and when calls are stored.
    let grader: CallGrader | undefined
    const social = createSocialProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS, onCallerInputs: () => grader?.changed({ kind: 'calls' }) })
    await social.start()
    await catchUpCallerState(rt.ch, rt.logger)
    grader = createCallGrader({ ch: rt.ch, logger: rt.logger })
    grader.start()
    onShutdown(rt, [() => social.stop(), () => grader?.stop()])
    return
  }
  if (positionals[0] === 'solana') {
    const rt = await createRuntime(config, 'pipeline-solana')
    const solana = createSolanaProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS })
    await solana.start()
    onShutdown(rt, [() => solana.stop()])
    return
  }
  if (positionals[0] === 'prices') {
    const rt = await createRoleRuntime(config, 'pipeline-prices')
    const prices = createPriceProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, flushEveryMs: config.PIPELINE_FLUSH_MS })
    await prices.start()
    const claims = createClaimsProcessor({ ch: rt.ch, bus: rt.bus, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE })
    await claims.start()
    onShutdown(rt, [() => prices.stop(), () => claims.stop()])
    return
  }
  if (positionals[0] === 'alerts') {
    refusePrivateEngine(config, 'pipeline alerts')
    const rt = await createRoleRuntime(config, 'pipeline-alerts')
    // Its own view of the serving state, following the watermark by polling (the chain runs elsewhere).
    const watermarks = createWatermarks(rt.ch, [4663])
    await watermarks.refresh()
    const alerts = await startAlertsWorker({
      ch: rt.ch, bus: rt.bus, store: rt.store, logger: rt.logger, metrics: rt.metrics, namespace: config.BUS_NAMESPACE, watermarks,
      tokens: createTokenServing({ ch: rt.ch, watermarks, logger: rt.logger, maxEntries: config.SERVING_CACHE_ENTRIES, answersRequests: false }),
      social: createSocialServing({ ch: rt.ch, watermarks, logger: rt.logger, maxEntries: config.SERVING_CACHE_ENTRIES }),
    })
    onShutdown(rt, [() => alerts.stop(), () => watermarks.stop()])
    return
  }
  if (positionals[0] === 'scans') {
    refusePrivateEngine(config, 'pipeline scans')
    const rt = await createRoleRuntime(config, 'pipeline-scans')
    const scans = await startScansRole(rt)
    onShutdown(rt, [() => scans.stop()])
    return
  }
  if (positionals[0] !== 'chain-4663' && positionals[0] !== 'chain-5042') {
    throw new ConfigError(`unknown pipeline ${JSON.stringify(positionals[0] ?? '')}: expected chain-4663, chain-5042, source-4663, source-5042, prices, social, solana, alerts or scans`)
  }
  const chainId = Number(positionals[0].slice('chain-'.length)) as ChainId
  const exitAt = values['exit-at-block'] !== undefined ? Number(values['exit-at-block']) : undefined
  const rt = await createRoleRuntime(config, `pipeline-${positionals[0]}`)
  let processor: ChainProcessor | undefined
  const done = async () => {
    await processor?.stop()
    await rt.close()
    process.exit(0)
  }
  processor = await startProcessor(rt, chainId, (b) => {
    if (exitAt !== undefined && b >= exitAt) void done()
  })
  if (exitAt !== undefined && processor.watermark() >= exitAt) return done()
  onShutdown(rt, [() => processor!.stop()])
}

async function commandSim(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, until: { type: 'string' }, genesis: { type: 'string' }, chain: { type: 'string' } } })
  if (values.chain === '5042') return commandSim5042(config, values)
  if (values.chain !== undefined && values.chain !== '4663') throw new ConfigError(`svc sim --chain must be 4663 or 5042, not ${JSON.stringify(values.chain)}`)
  const rt = await createRoleRuntime(config, 'sim')
  // Resuming from the stored chain, the social world resumes from its checkpoint too (stored
  // once the bus took the records: `svc sim` publishes to Kafka).
  const resume = Boolean(config.CLICKHOUSE_URL && values.from === undefined)
  const cps = resume ? simCheckpoints(config) : undefined
  const start = await simCommandStart(rt, 4663, values, cps ? { path: cps.path, seed: config.SIMULATOR_SEED } : undefined)
  const sim = createSimSource({
    bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 4663, namespace: config.BUS_NAMESPACE, seed: config.SIMULATOR_SEED, blockSeconds: config.SIMULATOR_BLOCK_SECONDS, start,
    untilBlock: values.until !== undefined ? Number(values.until) : undefined,
    checkpoints: cps ? { save: cps.save(start.genesis) } : undefined,
  })
  // The Solana venue runs live beside an unbounded chain simulator.
  const solanaSim = values.until === undefined ? startSolanaSim(rt) : null
  const hold = onShutdown(rt, [() => sim.stop(), () => solanaSim?.stop()])
  await sim.run()
  await solanaSim?.stop()
  await rt.close()
  hold.release()
}

/** `svc sim --chain 5042`: the chain-5042 world (its pads, no social world or prices), resuming after its stored watermark. */
async function commandSim5042(config: Config, values: { from?: string; until?: string; genesis?: string }): Promise<void> {
  const rt = await createRoleRuntime(config, 'sim-5042')
  const start = await simCommandStart(rt, 5042, values)
  const sim = createSimSource({
    bus: rt.bus, logger: rt.logger, metrics: rt.metrics, chainId: 5042, namespace: config.BUS_NAMESPACE, seed: config.SIMULATOR_SEED + 5042, blockSeconds: config.SIMULATOR_BLOCK_SECONDS, start,
    untilBlock: values.until !== undefined ? Number(values.until) : undefined, social: false, prices: false, launchpads: simLaunchpads(5042),
  })
  const hold = onShutdown(rt, [() => sim.stop()])
  await sim.run()
  await rt.close()
  hold.release()
}

async function commandMigrate(config: Config): Promise<void> {
  const ch = await createClickHouse(config)
  const r = await migrate(ch)
  console.log(JSON.stringify(r))
  await ch.close()
}

/** `svc keys create <plan> | list | revoke <prefix>`: subscription keys, stored hashed. */
async function commandKeys(config: Config, args: string[]): Promise<void> {
  const [action, arg] = args
  const ch = await createClickHouse(config)
  let closeStore: () => Promise<void> | undefined = () => undefined
  try {
    await migrate(ch)
    // Written through to Redis when configured, so running API processes see the key at once.
    const store = config.REDIS_URL ? createRedisStore(config.REDIS_URL) : undefined
    closeStore = () => store?.close()
    const keys = createKeyRegistry(ch, store)
    if (action === 'create') {
      if (!PLAN_NAMES.includes(arg as PlanName)) throw new ConfigError(`svc keys create needs a plan: ${PLAN_NAMES.join(', ')}`)
      const { key, record } = await keys.create(arg as PlanName)
      console.log(JSON.stringify({ key, prefix: record.prefix, plan: record.plan, note: 'shown once: store it now' }))
    } else if (action === 'list') {
      for (const k of await keys.list()) console.log(JSON.stringify({ prefix: k.prefix, plan: k.plan, created_at: k.createdAt, revoked_at: k.revokedAt }))
    } else if (action === 'revoke') {
      if (!arg) throw new ConfigError('svc keys revoke needs a key prefix (svc_live_XXXX)')
      console.log(JSON.stringify({ revoked: await keys.revoke(arg) }))
    } else {
      throw new ConfigError('usage: svc keys create <plan> | list | revoke <prefix>')
    }
  } finally {
    await closeStore()
    await ch.close()
  }
}

/**
 * `svc roster import <file.json>`: an operator's leaderboard, validated as POST
 * /admin/leaderboard-claims validates it. With Kafka it is published on leaderboard.claims for the
 * running pipeline; with the in-process bus there is no pipeline to hear it, so the claims are
 * written to ClickHouse as the claims processor writes them (embedded: while the service is stopped).
 */
async function commandRoster(config: Config, args: string[]): Promise<void> {
  const [action, file] = args
  if (action !== 'import' || !file) throw new ConfigError('usage: svc roster import <file.json>')
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new ConfigError(`svc roster import: cannot read ${file} as JSON: ${(err as Error).message}`)
  }
  const parsed = Leaderboard.safeParse(Array.isArray(raw) ? raw : (raw as { claims?: unknown })?.claims)
  if (!parsed.success) throw new ConfigError(`svc roster import: ${file} is not a leaderboard: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'claims'}: ${i.message}`).join('; ')}`)
  const rt = await createRuntime(config, 'roster-import')
  try {
    if (rt.bus.kind === 'memory') await rt.ch.insert({ table: 'leaderboard_claims', values: parsed.data.map(claimRow), format: 'JSONEachRow' })
    else await publishClaims(rt.bus, config.BUS_NAMESPACE, parsed.data)
    console.log(JSON.stringify({ imported: parsed.data.length, source: parsed.data[0]!.source, claimed_at: parsed.data[0]!.claimed_at, via: rt.bus.kind === 'memory' ? 'clickhouse' : 'bus' }))
  } finally {
    await rt.close()
  }
}

async function commandSql(config: Config, args: string[]): Promise<void> {
  const query = args.join(' ').trim()
  if (!query) throw new ConfigError('svc sql needs a query: svc sql "SELECT ..."')
  const ch = await createClickHouse(config)
  try {
    for (const row of await runReadOnlySql(ch, query)) console.log(JSON.stringify(row))
  } finally {
    await ch.close()
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (!command || command === '--help' || command === 'help') {
    console.log(USAGE)
    return
  }
  const config = loadConfig()
  switch (command) {
    case 'start': return commandStart(config)
    case 'api': return commandApi(config)
    case 'api-process': return runApiProcess(config)
    case 'pipeline': return commandPipeline(config, rest)
    case 'sim': return commandSim(config, rest)
    case 'migrate': return commandMigrate(config)
    case 'engine': return commandEngine(config, rest)
    case 'sql': return commandSql(config, rest)
    case 'verify': return commandVerify(config, rest)
    case 'keys': return commandKeys(config, rest)
    case 'roster': return commandRoster(config, rest)
    case 'pay': return commandPay(config, rest)
    default:
      console.error(`svc: unknown command ${JSON.stringify(command)}\n${USAGE}`)
      process.exit(2)
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError || isPermanentPublishError(err)) {
    console.error(`svc: ${err.message}`)
    process.exit(1)
  }
  console.error(err)
  process.exit(1)
})
