// A hostile client in its own process (so its work never shares the server's event loop):
// opens COUNT connections to 127.0.0.1:PORT, each sending the head of a POST to PATH declaring
// DECLARED bytes of body and then SENT bytes of it (KIND "nested": that many bytes of nested
// JSON arrays, [[[...]]]; otherwise "AAA..."), and going quiet. Prints "connected" once every
// connection is open (the process has started: its own start-up is not the server's time), then
// one JSON line once every connection is closed: each one's status (0: closed without an
// answer) and milliseconds until it closed.
import { connect } from 'node:net'

const [port, count, path, declared, sent, kind] = process.argv.slice(2)
const body = Buffer.alloc(Number(sent), 0x41)
if (kind === 'nested') {
  body.fill(0x5b, 0, body.length / 2)
  body.fill(0x5d, body.length / 2)
}
const head = Buffer.from(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\nConnection: close\r\n\r\n`)
const started = Date.now()
let open = 0
const answers = await Promise.all(
  Array.from({ length: Number(count) }, () => new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      if (++open === Number(count)) process.stdout.write('connected\n')
    })
    const chunks = []
    socket.on('data', (d) => chunks.push(d))
    socket.on('error', () => {})
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const code = /"code":"(\w+)"/.exec(text)?.[1] ?? null
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), code, retryAfter: /\r\nretry-after: *(\d+)/i.exec(text)?.[1] ?? null, closedAfterMs: Date.now() - started })
    })
    socket.write(head)
    socket.write(body)
  })),
)
process.stdout.write(JSON.stringify(answers) + '\n')
