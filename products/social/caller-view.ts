import { z } from 'zod'
import type { CallerRecord } from './caller-state.ts'

/** A caller's measured record as every social endpoint shows it. */
export const CallerRecordView = z.object({
  handle: z.string(),
  calls: z.number().int().meta({ description: 'calls (first mentions of a token) ever made' }),
  graded_calls: z.number().int().meta({ description: 'calls an hour old whose token traded in that hour' }),
  early_rate: z.number().meta({ description: 'share of graded calls placed before the token became real' }),
  momentum_rate: z.number().meta({ description: 'share of graded calls placed after the token became real' }),
  hit_rate_1h: z.number(),
  median_return_1h: z.number().nullable(),
  score: z.number().int().nullable(),
  grade: z.enum(['A', 'B', 'C', 'D']).nullable(),
  measured: z.boolean().meta({ description: 'at least 4 graded calls' }),
  clustered: z.boolean().meta({ description: 'in a mutual-follow cluster (its accounts count as one voice)' }),
})

export function callerRecordView(handle: string, c: CallerRecord | undefined): z.infer<typeof CallerRecordView> {
  return {
    handle,
    calls: c?.calls ?? 0,
    graded_calls: c?.graded ?? 0,
    early_rate: round(c?.earlyRate ?? 0),
    momentum_rate: round(c?.momentumRate ?? 0),
    hit_rate_1h: round(c?.hitRate ?? 0),
    median_return_1h: c?.medianReturn1h == null ? null : round(c.medianReturn1h),
    score: c?.score ?? null,
    grade: c?.grade ?? null,
    measured: c?.measured ?? false,
    clustered: Boolean(c?.cluster),
  }
}

export function round(x: number, places = 4): number {
  const f = 10 ** places
  return Math.round(x * f) / f
}

export const iso = (unix: number) => new Date(unix * 1000).toISOString().replace('.000Z', 'Z')
