/**
 * The insert_deduplication_token of a batch: its topic, partition and offset range. A batch
 * retried in place, or delivered again with the same boundaries, gets the same token, so an
 * insert ClickHouse already acknowledged is not applied twice. (A redelivery cut at other
 * boundaries gets another token; consumers without a batch journal rely on natural keys then.)
 */
export function offsetRangeToken(topic: string, partition: number, firstOffset: string, lastOffset: string): string {
  return `${topic}:${partition}:${firstOffset}-${lastOffset}`
}
