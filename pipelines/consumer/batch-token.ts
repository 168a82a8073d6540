import { createHash } from 'node:crypto'
import type { BusMessage } from '../../core/bus/types.ts'

/**
 * The insert_deduplication_token of a batch: its topic, partition and offset range, and a digest
 * of what those offsets hold. A batch retried in place, or delivered again with the same
 * boundaries, gets the same token, so an insert ClickHouse already acknowledged is not applied
 * twice. The digest is there because offsets alone do not name the data everywhere: the
 * in-process bus numbers from 0 again after a restart, and a token reused for other records
 * would have ClickHouse drop them as duplicates. (A redelivery cut at other boundaries gets
 * another token; consumers without a batch journal rely on natural keys then.)
 */
export function offsetRangeToken(topic: string, partition: number, messages: readonly BusMessage[]): string {
  const digest = createHash('sha256')
  for (const m of messages) digest.update(m.key ?? '').update('\0').update(m.value).update('\0')
  return `${topic}:${partition}:${messages[0]!.offset}-${messages[messages.length - 1]!.offset}:${digest.digest('hex').slice(0, 16)}`
}
