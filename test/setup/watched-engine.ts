import type { ClickHouseClient } from '../../core/clickhouse.ts'

type Method = 'query' | 'command' | 'insert'

/**
 * The real client, telling `onCall` of each `method` call's arguments before it runs: how tests
 * count the statements (or the keys of the reads) code under test sends.
 */
export function watchedEngine<M extends Method>(ch: ClickHouseClient, method: M, onCall: (args: Parameters<ClickHouseClient[M]>[0]) => void): ClickHouseClient {
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== method) return Reflect.get(target, prop, receiver)
      return (args: Parameters<ClickHouseClient[M]>[0]) => {
        onCall(args)
        return (target[method] as (a: typeof args) => unknown)(args)
      }
    },
  })
}
