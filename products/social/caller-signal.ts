import { z } from 'zod'
import { queryRows } from '../../core/clickhouse.ts'
import type { ApiDeps } from '../../core/endpoint/deps.ts'
import { iso } from './caller-view.ts'

/** The measured-caller signal of a launch (/feed/new?tier=alpha). */
export const CallerSignalView = z
  .object({
    measured_callers: z.number().int().meta({ description: 'measured callers (4+ graded calls) who called (first mentioned) the token' }),
    best_grade: z.enum(['A', 'B', 'C', 'D']).nullable().meta({ description: 'the best grade among them; null without one' }),
    first_call: z
      .object({
        handle: z.string(),
        grade: z.enum(['A', 'B', 'C', 'D']).nullable(),
        called_at: z.string().meta({ description: 'posting time of the call' }),
        minutes_after_launch: z.number().meta({ description: 'called_at - launched_at in minutes (negative: called before the launch block)' }),
      })
      .nullable()
      .meta({ description: 'the earliest call by a measured caller; null without one' }),
  })
  .meta({ description: 'tier=alpha: who among the measured callers called the launch, from the graded caller records' })

export type CallerSignal = z.infer<typeof CallerSignalView>

const RANK = { A: 0, B: 1, C: 2, D: 3 } as const

/**
 * The measured-caller signal of each token, for one feed page. Access paths, by key: the calls
 * (each account's first mention) of the page's tokens from `mentions` by its token key, the
 * callers' records from caller_state through the social serving cache.
 */
export async function callerSignals(deps: Pick<ApiDeps, 'ch' | 'social'>, launches: Array<{ token: string; launchedAt: number }>): Promise<Map<string, CallerSignal>> {
  const out = new Map<string, CallerSignal>()
  if (launches.length === 0) return out
  const calls = await queryRows<{ token: string; author: string; at: string }>(
    deps.ch,
    'SELECT token, author, toUnixTimestamp(min(posted_at)) AS at FROM mentions WHERE token IN {tokens:Array(String)} GROUP BY token, author ORDER BY token, at, author',
    { tokens: launches.map((l) => l.token) },
  )
  const callers = await deps.social.callers([...new Set(calls.map((c) => c.author))])
  for (const l of launches) {
    const measured = calls.filter((c) => c.token === l.token && callers.get(c.author)?.measured)
    const grades = measured.map((c) => callers.get(c.author)!.grade).filter((g): g is 'A' | 'B' | 'C' | 'D' => g !== null)
    const first = measured[0]
    out.set(l.token, {
      measured_callers: measured.length,
      best_grade: grades.length ? grades.reduce((a, b) => (RANK[b] < RANK[a] ? b : a)) : null,
      first_call: first
        ? {
            handle: first.author,
            grade: callers.get(first.author)!.grade,
            called_at: iso(Number(first.at)),
            minutes_after_launch: Math.round(((Number(first.at) - l.launchedAt) / 60) * 10) / 10,
          }
        : null,
    })
  }
  return out
}
