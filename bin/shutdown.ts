import type { Runtime } from './runtime.ts'

/** Stop cleanly on SIGTERM/SIGINT: each closer runs once, in order. */
export function onShutdown(rt: Runtime, closers: Array<() => Promise<void> | void>): void {
  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    rt.logger.info({ signal }, 'shutting down: finishing the running batch, committing, closing')
    for (const c of closers) {
      try {
        await c()
      } catch (err) {
        rt.logger.error({ err }, 'error during shutdown')
      }
    }
    await rt.close()
    // 0 unless something set another code (a part of the service that stopped on its own).
    process.exit()
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}
