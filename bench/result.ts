/** One benchmark's outcome: our figure against a named baseline measured on the same input. */
export interface BenchResult {
  name: string
  /** What we are compared with, e.g. `viem decodeEventLog`. */
  baseline: string
  ours: { value: number; unit: string }
  base: { value: number; unit: string }
  /** ours / base, in the direction where higher is better for us. */
  ratio: number
  notes?: string
}
