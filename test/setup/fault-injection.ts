import type { ClickHouseClient } from '../../core/clickhouse.ts'
import type { Bus } from '../../core/bus/types.ts'

/**
 * A fault the test turns on and off: while armed, every call it covers throws `error` (the same
 * object each time, as a real outage keeps answering the same way), and the calls are counted.
 */
export interface FaultSwitch {
  arm(error: unknown, where?: string): void
  release(): void
  /** Calls refused since the last arm. */
  hits(): number
}

export function faultSwitch(): FaultSwitch & { check(where: string): void } {
  let armed: { error: unknown; where?: string } | null = null
  let hits = 0
  return {
    arm(error, where) {
      armed = { error, where }
      hits = 0
    },
    release() {
      armed = null
    },
    hits: () => hits,
    check(where) {
      if (!armed || (armed.where !== undefined && armed.where !== where)) return
      hits++
      throw armed.error
    },
  }
}

/** The real client, with inserts into the switch's table refused while it is armed (reads and commands pass). */
export function faultyInserts(ch: ClickHouseClient, sw: ReturnType<typeof faultSwitch>): ClickHouseClient {
  return new Proxy(ch, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'insert' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
      return async (params: { table: string }) => {
        sw.check(params.table)
        return (value as (p: unknown) => Promise<unknown>).call(target, params)
      }
    },
  })
}

/** The real bus, with publishes refused while the switch is armed (a broker that is down). */
export function faultyPublishes(bus: Bus, sw: ReturnType<typeof faultSwitch>): Bus {
  return new Proxy(bus, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver)
      if (prop !== 'publish' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value
      return async (topic: string, records: unknown) => {
        sw.check(topic)
        return (value as (t: string, r: unknown) => Promise<void>).call(target, topic, records)
      }
    },
  })
}
