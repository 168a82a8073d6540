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
