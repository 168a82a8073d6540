/**
 * A small seeded PRNG (xoshiro128**, seeded through splitmix32) so the simulated world is
 * identical for a given seed on every machine and Node version. Not for cryptography.
 */
export interface Rng {
  /** Uniform uint32. */
  u32(): number
  /** Uniform in [0, 1). */
  float(): number
  /** Uniform integer in [0, n). */
  int(n: number): number
  /** Uniform in [lo, hi). */
  range(lo: number, hi: number): number
  /** Log-uniform in [lo, hi): amounts that span orders of magnitude. */
  logRange(lo: number, hi: number): number
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
  /** Poisson-distributed count with mean `lambda`. */
  poisson(lambda: number): number
  /** `chars` random lowercase hex characters. */
  hex(chars: number): string
  /** The generator's position, to checkpoint it. */
  save(): RngState
  /** Continue from a position `save()` returned: the same draws follow. */
  load(state: RngState): void
}

/** The four 32-bit words of xoshiro128's state. */
export type RngState = [number, number, number, number]

/** A 32-bit seed from a number or string (FNV-1a over its decimal/text form). */
export function seedToU32(seed: number | string): number {
  const s = String(seed)
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

function splitmix32(state: { x: number }): number {
  state.x = (state.x + 0x9e3779b9) | 0
  let z = state.x
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

export function createRng(seed: number | string): Rng {
  const sm = { x: seedToU32(seed) }
  let s0 = splitmix32(sm)
  let s1 = splitmix32(sm)
  let s2 = splitmix32(sm)
  let s3 = splitmix32(sm)
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1 // the all-zero state is a fixed point

  function u32(): number {
    const r = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0
    const t = s1 << 9
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 11)
    return r
  }
  function float(): number {
    // 53 bits from two draws, so float() never returns exactly 1.
    return ((u32() >>> 5) * 67108864 + (u32() >>> 6)) / 9007199254740992
  }
  const rng: Rng = {
    u32,
    float,
    int: (n) => Math.floor(float() * n),
    range: (lo, hi) => lo + float() * (hi - lo),
    logRange: (lo, hi) => lo * Math.exp(float() * Math.log(hi / lo)),
    chance: (p) => float() < p,
    pick: (items) => items[Math.floor(float() * items.length)],
    poisson(lambda) {
      if (lambda <= 0) return 0
      if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian(float)))
      const limit = Math.exp(-lambda)
      let k = 0
      let p = float()
      while (p > limit) {
        k++
        p *= float()
      }
      return k
    },
    hex(chars) {
      let out = ''
      while (out.length < chars) out += u32().toString(16).padStart(8, '0')
      return out.slice(0, chars)
    },
    save: () => [s0, s1, s2, s3],
    load(state) {
      if (state.length !== 4 || !state.every((w) => Number.isInteger(w))) throw new TypeError('Rng.load(): expected four 32-bit words')
      ;[s0, s1, s2, s3] = state
    },
  }
  return rng
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k))
}

function gaussian(float: () => number): number {
  const u = 1 - float()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * float())
}
