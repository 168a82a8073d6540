import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './svc-process.ts'
import { tempDir } from './temp.ts'
import { clusterId } from '../../infra/kafka/cluster-id.mjs'

/**
 * A single-node Kafka broker of the test's own (the jars `infra/kafka.sh install` keeps), on free
 * ports, with its log in a temp directory kept across restarts: a test stops and restarts this
 * one, never the shared broker every other test run uses.
 */
export interface OwnKafka {
  brokers: string
  /** Stop the broker (SIGTERM, SIGKILL after 20 s) and wait for the exit. Its data stays. */
  stop(): Promise<void>
  /** Start it again on the same ports with the same data, once it answers. */
  start(): Promise<void>
  /** Stop for good and remove its directory. */
  dispose(): Promise<void>
}

const repoRoot = join(import.meta.dirname, '../..')

export async function startOwnKafka(): Promise<OwnKafka> {
  execFileSync('bash', ['infra/kafka.sh', 'install'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] })
  const libs = join(process.env.SVC_INFRA_CACHE ?? join(homedir(), '.cache/svc-infra'), 'kafka/libs/*')
  const dir = tempDir('svc-own-kafka-')
  const port = await freePort()
  const controller = await freePort()
  const config = join(dir.path, 'server.properties')
  writeFileSync(
    config,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controller}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      `log.dirs=${join(dir.path, 'data')}`,
      'auto.create.topics.enable=true',
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'share.coordinator.state.topic.replication.factor=1',
      'share.coordinator.state.topic.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'num.network.threads=2',
      'num.io.threads=2',
      'background.threads=2',
    ].join('\n') + '\n',
  )
  const jvm = ['-Xms128m', '-Xmx384m', '-XX:+UseSerialGC', '-Djava.awt.headless=true', `-Dlog4j2.configurationFile=${join(repoRoot, 'infra/kafka/log4j2.properties')}`]
  execFileSync('java', [...jvm, '-cp', libs, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', config], { stdio: 'ignore' })

  let child: ChildProcess | null = null
  const killOnExit = () => child?.kill('SIGKILL')
  process.once('exit', killOnExit)
  const brokers = `127.0.0.1:${port}`

  async function start(): Promise<void> {
    const c = spawn('java', [...jvm, '-cp', libs, 'kafka.Kafka', config], { stdio: 'ignore' })
    child = c
    const deadline = Date.now() + 120_000
    for (;;) {
      if (c.exitCode !== null) throw new Error(`own Kafka broker exited with ${c.exitCode} during start`)
      try {
        execFileSync('node', [join(repoRoot, 'infra/kafka/probe.mjs'), brokers, '3000'], { cwd: repoRoot, stdio: 'ignore' })
        return
      } catch {
        if (Date.now() > deadline) throw new Error(`own Kafka broker on ${brokers} did not answer in 120 s`)
        await new Promise((r) => setTimeout(r, 500))
      }
    }
  }

  async function stop(): Promise<void> {
    const c = child
    child = null
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    await new Promise<void>((resolve) => {
      const hard = setTimeout(() => c.kill('SIGKILL'), 20_000)
      c.once('exit', () => {
        clearTimeout(hard)
        resolve()
      })
      c.kill('SIGTERM')
    })
  }

  await start()
  return {
    brokers,
    stop,
    start,
    async dispose() {
      await stop()
      process.removeListener('exit', killOnExit)
      dir.cleanup()
    },
  }
}
