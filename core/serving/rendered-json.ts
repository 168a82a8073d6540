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

/**
 * Levels below the envelope whose objects are walked for kept parts: a response's `data` and its
 * lists (a feed page's `data.launches`, items kept per record). Deeper, or in a list whose first
 * element is not kept, JSON.stringify writes the rest in one call.
 */
const KEPT_DEPTH = 2

function textOf(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (!once.has(value)) return walkedText(value, depth)
  let text = texts.get(value)
  // A kept part is written once, itself from the kept text of its own kept items.
  if (text === undefined) texts.set(value, (text = walkedText(value, depth)))
  return text
}

/** An object or list as JSON.stringify writes it, walked for kept parts down to `depth` levels. */
function walkedText(value: object, depth: number): string {
  if (depth <= 0) return JSON.stringify(value)
  if (Array.isArray(value)) {
    const first: unknown = value[0]
    if (first === null || typeof first !== 'object' || !once.has(first)) return JSON.stringify(value)
    // As JSON.stringify: an element with no JSON form (or a hole) is written as null.
    const items: string[] = []
    for (let i = 0; i < value.length; i++) items.push(textOf(value[i], depth - 1) ?? 'null')
    return `[${items.join(',')}]`
  }
  const proto = Object.getPrototypeOf(value)
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(value)
  return fieldsText(value as Record<string, unknown>, depth - 1)
}

/** An object's own fields as JSON.stringify writes them, each value through textOf. */
function fieldsText(value: Record<string, unknown>, depth: number): string {
  const fields: string[] = []
  for (const [k, v] of Object.entries(value)) {
    const text = textOf(v, depth)
    // As JSON.stringify: fields whose value has no JSON form (undefined, functions) are left out.
    if (text !== undefined) fields.push(`${JSON.stringify(k)}:${text}`)
  }
  return `{${fields.join(',')}}`
}

/**
 * A response body as JSON.stringify would write it, with the text of marked parts reused: the
 * envelope's own fields, and the objects and lists of kept items down to KEPT_DEPTH below them.
 */
export function renderResponse(result: unknown): string {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return JSON.stringify(result)
  return fieldsText(result as Record<string, unknown>, KEPT_DEPTH)
}

/** A kept part's whole response as bytes, with the envelope it was rendered in. */
const bodies = new WeakMap<object, { envelope: string; bytes: Buffer }>()
/** The bytes of answers kept whole. */
const wholes = new WeakMap<object, Buffer>()

/**
 * The response body as bytes: for an envelope of one kept part and plain values (`{data:
 * <kept>, chain_id, measured_through_block}`, what the kept answers return), the bytes are made
 * once per part and envelope values and reused by every request until either changes; anything
 * else is rendered afresh.
 */
export function responseBytes(result: unknown): Buffer {
  // A whole answer marked kept (renderOnce): its bytes are kept with it.
  if (result !== null && typeof result === 'object' && once.has(result)) {
    let whole = wholes.get(result)
    if (whole === undefined) wholes.set(result, (whole = Buffer.from(renderResponse(result))))
    return whole
  }
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
