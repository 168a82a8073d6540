import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

/**
 * The load bench's baseline: a bare node:http server answering one fixed response (the bytes of
 * a /token answer) to every request. What HTTP alone costs on this machine, in its own process.
 * Usage: node bench/bare-server.ts <body-file> <port>
 */
const body = readFileSync(process.argv[2]!)
createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
  res.end(body)
}).listen(Number(process.argv[3]), '127.0.0.1', () => console.log('listening'))
