/**
 * A value read once per data version and shared by every request at that version; a failed read
 * is not kept, so the next request reads again.
 */
export function oncePerVersion<V>(read: (version: string) => Promise<V>): (version: string) => Promise<V> {
  let held: { version: string; value: Promise<V> } | null = null
  return (version) => {
    if (held?.version !== version) {
      const value = read(version)
      held = { version, value }
      value.catch(() => {
        if (held?.value === value) held = null
      })
    }
    return held.value
  }
}
