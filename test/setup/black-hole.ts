import { createServer, type Socket } from 'node:net'

export interface BlackHole {
  port: number
  close(): Promise<void>
}

/**
 * A TCP server that accepts connections and never says a word: a dependency that hangs rather
 * than refuses, which only a request timeout can detect.
 */
export async function startBlackHole(): Promise<BlackHole> {
  const held: Socket[] = []
  const server = createServer((s) => {
    held.push(s)
    s.on('error', () => {})
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((r) => {
        // close() waits for open connections: the held ones never end on their own.
        held.forEach((s) => s.destroy())
        server.close(() => r())
      }),
  }
}
