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
  return new Xoshiro128(seed)
}

/**
 * The generator as a class: its methods are shared on the prototype, so one costs its four words
 * (a world holds one per simulated wallet, tens of thousands; closures per generator came to some
 * 35 MB of the process's heap).
 */
class Xoshiro128 implements Rng {
  private s0: number
  private s1: number
  private s2: number
  private s3: number

  constructor(seed: number | string) {
    const sm = { x: seedToU32(seed) }
    this.s0 = splitmix32(sm)
    this.s1 = splitmix32(sm)
    this.s2 = splitmix32(sm)
    this.s3 = splitmix32(sm)
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1 // the all-zero state is a fixed point
  }

  u32(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0
    const t = this.s1 << 9
    this.s2 ^= this.s0
    this.s3 ^= this.s1
    this.s1 ^= this.s2
    this.s0 ^= this.s3
    this.s2 ^= t
    this.s3 = rotl(this.s3, 11)
    return r
  }

  float(): number {
    // 53 bits from two draws, so float() never returns exactly 1.
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992
  }

  int(n: number): number {
    return Math.floor(this.float() * n)
  }

  range(lo: number, hi: number): number {
    return lo + this.float() * (hi - lo)
  }

  logRange(lo: number, hi: number): number {
    return lo * Math.exp(this.float() * Math.log(hi / lo))
  }

  chance(p: number): boolean {
    return this.float() < p
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!
  }

  poisson(lambda: number): number {
    if (lambda <= 0) return 0
    if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian(this)))
    const limit = Math.exp(-lambda)
    let k = 0
    let p = this.float()
    while (p > limit) {
      k++
      p *= this.float()
    }
    return k
  }

  hex(chars: number): string {
    let out = ''
    while (out.length < chars) out += this.u32().toString(16).padStart(8, '0')
    return out.slice(0, chars)
  }

  save(): RngState {
    return [this.s0, this.s1, this.s2, this.s3]
  }

  load(state: RngState): void {
    if (state.length !== 4 || !state.every((w) => Number.isInteger(w))) throw new TypeError('Rng.load(): expected four 32-bit words')
    ;[this.s0, this.s1, this.s2, this.s3] = state
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k))
}

function gaussian(rng: Rng): number {
  const u = 1 - rng.float()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.float())
}
