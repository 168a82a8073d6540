// Exit 0 when the Kafka broker at argv[2] (host:port) answers, 1 otherwise.
// With the repo's kafkajs installed it asks for cluster metadata (the broker is registered
// and serving); on a machine without node_modules it falls back to a raw ApiVersions call.
import net from 'node:net'
import { createRequire } from 'node:module'

const [host, portText] = (process.argv[2] ?? '').split(':')
const port = Number(portText)
const timeoutMs = Number(process.argv[3] ?? 5000)
setTimeout(() => process.exit(1), timeoutMs).unref()

async function withKafkajs(kafkajs) {
  const kafka = new kafkajs.Kafka({
    clientId: 'svc-infra-probe',
    brokers: [`${host}:${port}`],
    logLevel: kafkajs.logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { retries: 0 },
  })
  const admin = kafka.admin()
  await admin.connect()
  try {
    const cluster = await admin.describeCluster()
    return cluster.brokers.length > 0
  } finally {
    await admin.disconnect()
  }
}

// ApiVersions v0: int32 size, int16 key 18, int16 version 0, int32 correlation id, client id.
function withRawApiVersions() {
  return new Promise((resolve) => {
    const clientId = Buffer.from('svc-infra-probe')
    const body = Buffer.alloc(10 + clientId.length)
    body.writeInt16BE(18, 0)
    body.writeInt16BE(0, 2)
    body.writeInt32BE(7, 4)
    body.writeInt16BE(clientId.length, 8)
    clientId.copy(body, 10)
    const size = Buffer.alloc(4)
    size.writeInt32BE(body.length, 0)
    let got = Buffer.alloc(0)
    const socket = net.connect({ host, port }, () => socket.write(Buffer.concat([size, body])))
    socket.on('data', (chunk) => {
      got = Buffer.concat([got, chunk])
      if (got.length >= 10) {
        socket.destroy()
        resolve(got.readInt32BE(4) === 7 && got.readInt16BE(8) === 0)
      }
    })
    socket.on('error', () => resolve(false))
    socket.on('close', () => resolve(false))
  })
}

let kafkajs = null
try {
  kafkajs = createRequire(new URL('../../package.json', import.meta.url))('kafkajs')
} catch {}

try {
  const ok = kafkajs ? await withKafkajs(kafkajs) : await withRawApiVersions()
  process.exit(ok ? 0 : 1)
} catch {
  process.exit(1)
}
