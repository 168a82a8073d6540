/** One Kafka cluster id (see cluster-id.mjs): 22 base64url characters, never starting with '-'. */
export function clusterId(): string
