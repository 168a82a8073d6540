/** Poll `f` every 50 ms until it returns a value (not undefined); throw naming `what` after `ms` (a minute unless told: long enough for a busy CI machine, short enough to name a wait that never ends). */
export async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await f()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
