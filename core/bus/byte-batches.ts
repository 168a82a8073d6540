import type { BusRecord } from './types.ts'
import { RecordTooLargeError } from './publish-errors.ts'

/**
 * Splitting a publish into sends the broker takes. Kafka refuses a record batch larger than the
 * topic's max.message.bytes (MESSAGE_TOO_LARGE, not retriable), and one send to a partition is
 * one batch: the simulator's 100 blocks of 1401-1500 are 1,168,834 bytes, over the default
 * 1,048,588. So a send holds at most `maxRecords` records and stays below the byte limit.
 */

/** Kafka's v2 record batch header is 61 bytes; the rest is margin for what we estimate. */
const BATCH_OVERHEAD_BYTES = 128
/** A record's own framing: length, attributes, timestamp and offset deltas, key and value lengths (varints). */
const RECORD_OVERHEAD_BYTES = 40
const HEADER_OVERHEAD_BYTES = 10

/** What one record adds to a batch, uncompressed (the bus does not compress). */
export function recordBytes(r: BusRecord): number {
  let n = RECORD_OVERHEAD_BYTES + Buffer.byteLength(r.value) + (r.key === null ? 0 : Buffer.byteLength(r.key))
  for (const [k, v] of Object.entries(r.headers ?? {})) n += HEADER_OVERHEAD_BYTES + Buffer.byteLength(k) + Buffer.byteLength(v)
  return n
}

/**
 * The records in order, cut into sends of at most `maxRecords` records whose batch stays within
 * `limitBytes`. A record that cannot fit even alone is a RecordTooLargeError naming its size and
 * the limit (thrown before anything is sent, so no part of the publish goes out).
 */
export function splitByBytes(topic: string, records: BusRecord[], limitBytes: number, maxRecords: number): BusRecord[][] {
  const budget = limitBytes - BATCH_OVERHEAD_BYTES
  const out: BusRecord[][] = []
  let current: BusRecord[] = []
  let bytes = 0
  for (const r of records) {
    const size = recordBytes(r)
    if (size > budget) throw new RecordTooLargeError(topic, size, limitBytes)
    if (current.length > 0 && (bytes + size > budget || current.length >= maxRecords)) {
      out.push(current)
      current = []
      bytes = 0
    }
    current.push(r)
    bytes += size
  }
  if (current.length > 0) out.push(current)
  return out
}
