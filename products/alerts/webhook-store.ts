import type { ClickHouseClient } from '../../core/clickhouse.ts'
import { queryRows } from '../../core/clickhouse.ts'

export interface Webhook {
  keyHash: string
  url: string
  secret: string
  createdAt: string
}

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed'

export interface Delivery {
  keyHash: string
  deliveryId: string
  eventId: string
  kind: string
  url: string
  status: DeliveryStatus
  attempts: number
  lastCode: number | null
  lastError: string
  createdAt: string
  updatedAt: string
}

/** A delivery with the body it signs and sends: what a worker needs to resume it after a restart. */
export interface StoredDelivery extends Delivery {
  /** The alert JSON as `alertBody` renders it; '' on rows recorded before migration 009. */
  body: string
}

export interface WebhookStore {
  get(keyHash: string): Promise<Webhook | null>
  /** Every live webhook (the delivery worker's fan-out list). */
  list(): Promise<Webhook[]>
  set(w: Webhook): Promise<void>
  remove(keyHash: string): Promise<boolean>
  /** Write a delivery's new state (a newer version of its row). */
  recordDelivery(d: StoredDelivery): Promise<void>
  /** One delivery's latest state, or null when it was never recorded. */
  delivery(keyHash: string, deliveryId: string): Promise<StoredDelivery | null>
  /** A key's latest deliveries, newest first. */
  recentDeliveries(keyHash: string, limit: number): Promise<Delivery[]>
  /** Deliveries whose latest state is pending or retrying, across all keys, least recently updated first. */
  unfinishedDeliveries(limit: number): Promise<StoredDelivery[]>
}

// Rows written in one millisecond still order: a per-process counter breaks the tie.
let seq = 0
const version = () => Date.now() * 1000 + (seq++ % 1000)
const ms = (iso: string) => Date.parse(iso)
const iso = (msSinceEpoch: string | number) => new Date(Number(msSinceEpoch)).toISOString()

interface DeliveryRow {
  key_hash: string; delivery_id: string; event_id: string; kind: string; url: string; status: DeliveryStatus; attempts: number
  last_code: number | null; last_error: string; created_at: string; updated_at: string; body: string
}

const DELIVERY_COLUMNS = `key_hash, delivery_id, event_id, kind, url, status, attempts, last_code, last_error,
  toUnixTimestamp64Milli(created_at) AS created_at, toUnixTimestamp64Milli(updated_at) AS updated_at`

const toDelivery = (r: DeliveryRow): Delivery => ({
  keyHash: r.key_hash, deliveryId: r.delivery_id, eventId: r.event_id, kind: r.kind, url: r.url, status: r.status, attempts: Number(r.attempts),
  lastCode: r.last_code === null ? null : Number(r.last_code), lastError: r.last_error, createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
})

const toStored = (r: DeliveryRow): StoredDelivery => ({ ...toDelivery(r), body: r.body })

/** Webhooks and their deliveries in ClickHouse (`webhooks`, `webhook_deliveries`): shared by API processes. */
export function createWebhookStore(ch: ClickHouseClient): WebhookStore {
  const insert = (table: string, values: Record<string, unknown>[]) =>
    ch.insert({ table, values, format: 'JSONEachRow', clickhouse_settings: { insert_deduplicate: 0 } }).then(() => undefined)

  async function live(where: string, params: Record<string, unknown>): Promise<Webhook[]> {
    const rows = await queryRows<{ key_hash: string; url: string; secret: string; created_at: string }>(
      ch,
      `SELECT key_hash, url, secret, toUnixTimestamp64Milli(created_at) AS created_at FROM webhooks FINAL WHERE deleted = 0 AND ${where} ORDER BY key_hash`,
      params,
    )
    return rows.map((r) => ({ keyHash: r.key_hash, url: r.url, secret: r.secret, createdAt: iso(r.created_at) }))
  }

  const deliveries = (columns: string, where: string, tail: string, params: Record<string, unknown>) =>
    queryRows<DeliveryRow>(ch, `SELECT ${columns} FROM webhook_deliveries FINAL WHERE ${where} ${tail}`, params)

  return {
    async get(keyHash) {
      return (await live('key_hash = {k:String}', { k: keyHash }))[0] ?? null
    },
    list: () => live('1', {}),
    set: (w) => insert('webhooks', [{ key_hash: w.keyHash, url: w.url, secret: w.secret, created_at: ms(w.createdAt), deleted: 0, version: version() }]),
    async remove(keyHash) {
      const w = (await live('key_hash = {k:String}', { k: keyHash }))[0]
      if (!w) return false
      await insert('webhooks', [{ key_hash: keyHash, url: w.url, secret: '', created_at: ms(w.createdAt), deleted: 1, version: version() }])
      return true
    },
    recordDelivery: (d) =>
      insert('webhook_deliveries', [{
        key_hash: d.keyHash, delivery_id: d.deliveryId, event_id: d.eventId, kind: d.kind, url: d.url, status: d.status, attempts: d.attempts,
        last_code: d.lastCode, last_error: d.lastError.slice(0, 500), body: d.body, created_at: ms(d.createdAt), updated_at: ms(d.updatedAt), version: version(),
      }]),
    async delivery(keyHash, deliveryId) {
      const rows = await deliveries(`${DELIVERY_COLUMNS}, body`, 'key_hash = {k:String} AND delivery_id = {d:String}', '', { k: keyHash, d: deliveryId })
      return rows[0] ? toStored(rows[0]) : null
    },
    async recentDeliveries(keyHash, limit) {
      const rows = await deliveries(DELIVERY_COLUMNS, 'key_hash = {k:String}', 'ORDER BY created_at DESC, delivery_id LIMIT {n:UInt32}', { k: keyHash, n: limit })
      return rows.map(toDelivery)
    },
    async unfinishedDeliveries(limit) {
      // FINAL merges the versions before WHERE filters on status (not a key column, so it is not moved to PREWHERE).
      const rows = await deliveries(`${DELIVERY_COLUMNS}, body`, "status IN ('pending', 'retrying')", 'ORDER BY updated_at, delivery_id LIMIT {n:UInt32}', { n: limit })
      return rows.map(toStored)
    },
  }
}
