import type { Runtime } from './runtime.ts'

/** A running role's hold on its process: `release` lets a role that ends on its own (a bounded simulator) end. */
export interface RoleHold {
  release(): void
}

/**
 * Run until SIGTERM/SIGINT, then stop cleanly: each closer runs once, in order.
 *
 * The role holds the event loop itself until then (or until it releases it): what it runs need
 * not (a role on the memory bus with unref'd timers holds nothing, and would otherwise end with 0
 * the moment it started).
 */
export function onShutdown(rt: Runtime, closers: Array<() => Promise<void> | void>): RoleHold {
  const running = setInterval(() => {}, 2 ** 31 - 1)
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
  return { release: () => clearInterval(running) }
}
