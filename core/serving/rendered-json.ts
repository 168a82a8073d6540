/**
 * JSON text kept with the kept parts of answers: a part marked `renderOnce` (a token's view, a
 * structure answer's data) is stringified the first time it is served, and every later response
 * splices that text into its per-request envelope (`chain_id`, `measured_through_block`, ...)
 * instead of walking the object again. A marked part must not change after it is marked: the
 * servings make a new object when its record changes.
 */
const once = new WeakSet<object>()
const texts = new WeakMap<object, string>()

/** Mark `part` as kept (unchanging): its JSON text is made once and reused. */
export function renderOnce<T extends object>(part: T): T {
  once.add(part)
  return part
}

function textOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || !once.has(value)) return JSON.stringify(value)
  let text = texts.get(value)
  if (text === undefined) texts.set(value, (text = JSON.stringify(value)))
  return text
}

/**
 * A response body as JSON.stringify would write it, with the text of marked parts reused (one
 * level: the envelope's own fields).
 */
export function renderResponse(result: unknown): string {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return JSON.stringify(result)
  const fields: string[] = []
  for (const [k, v] of Object.entries(result)) {
    const text = textOf(v)
    // As JSON.stringify: fields whose value has no JSON form (undefined, functions) are left out.
    if (text !== undefined) fields.push(`${JSON.stringify(k)}:${text}`)
  }
  return `{${fields.join(',')}}`
}

/** A kept part's whole response as bytes, with the envelope it was rendered in. */
const bodies = new WeakMap<object, { envelope: string; bytes: Buffer }>()

/**
 * The response body as bytes: for an envelope of one kept part and plain values (`{data:
 * <kept>, chain_id, measured_through_block}`, what the kept answers return), the bytes are made
 * once per part and envelope values and reused by every request until either changes; anything
 * else is rendered afresh.
 */
export function responseBytes(result: unknown): Buffer {
  const kept = result !== null && typeof result === 'object' && !Array.isArray(result) ? keptEnvelope(result as Record<string, unknown>) : null
  if (!kept) return Buffer.from(renderResponse(result))
  const memo = bodies.get(kept.part)
  if (memo && memo.envelope === kept.envelope) return memo.bytes
  const bytes = Buffer.from(renderResponse(result))
  bodies.set(kept.part, { envelope: kept.envelope, bytes })
  return bytes
}

/** The one kept part of a response and the rest of it as a key, or null when it is not such an envelope. */
function keptEnvelope(result: Record<string, unknown>): { part: object; envelope: string } | null {
  let part: object | null = null
  let envelope = ''
  for (const k in result) {
    const v = result[k]
    if (v !== null && typeof v === 'object') {
      if (part || !once.has(v)) return null
      part = v
      envelope += `${k}:*,`
    } else if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') return null
    else envelope += `${k}:${typeof v === 'string' ? JSON.stringify(v) : String(v)},`
  }
  return part ? { part, envelope } : null
}
