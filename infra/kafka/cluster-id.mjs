// Prints Kafka cluster ids, one a line (`node infra/kafka/cluster-id.mjs [COUNT]`), drawn the way
// Kafka's own Uuid.randomUuid() (behind `kafka-storage random-uuid`) draws them: a random
// version-4 UUID in unpadded base64url, drawn again when it would begin with '-'. An id that
// begins with '-' is read by `kafka-storage format -t ID` as an option ("argument
// --cluster-id/-t: expected one argument"), which failed about one broker start in 64.
// Plain Node, so a start does not pay for a second JVM.
import { randomUUID } from 'node:crypto'

/** One cluster id: 22 base64url characters that never start with '-' and are never all zero. */
export function clusterId() {
  for (;;) {
    const id = Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url')
    // Kafka also re-draws its reserved ids (zero and the metadata topic's); a v4 UUID has
    // version bits set, so it can be neither.
    if (!id.startsWith('-')) return id
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 1)
  if (!Number.isInteger(count) || count < 1) {
    console.error('usage: node infra/kafka/cluster-id.mjs [COUNT]')
    process.exit(2)
  }
  process.stdout.write(Array.from({ length: count }, clusterId).join('\n') + '\n')
}
