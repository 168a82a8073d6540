/**
 * Infrastructure faults a component of this process is retrying right now (a consumer whose
 * sink meets "Too many open files", a simulator whose bus is down). Work hit by one is never
 * given up on: it waits and retries, and meanwhile /health answers `degraded` naming the
 * component and the error class, back to `ok` once the work goes through.
 */

/** What kind of environment failure: the label of svc_pipeline_infra_retries_total and /health's `error_class`. */
export type InfraKind =
  | 'fd_exhausted'
  | 'disk_full'
  | 'memory'
  | 'timeout'
  | 'network'
  | 'broker'
  | 'store'
  | 'engine'
  | 'os'

export interface InfraFault {
  /** The component retrying: a consumer (`chain-4663`) or a source (`sim-4663`). */
  component: string
  /** Where in it: the step or sink of a consumer, the topic or checkpoint of a source. */
  at: string
  error_class: InfraKind
  /** The last error's message (shortened). */
  error: string
  /** When this run of failures began (ISO 8601). */
  since: string
  /** Failed attempts so far in this run. */
  retries: number
}

export interface InfraFaults {
  /** `component` failed at `at` with an infrastructure fault and will retry. */
  retrying(component: string, at: string, kind: InfraKind, err: unknown): void
  /** `component`'s work at `at` went through: its fault there is over. */
  cleared(component: string, at: string): void
  /** The faults being retried now, oldest first (this process's and its peer's). */
  active(): InfraFault[]
  /** This process's own faults being retried now. */
  own(): InfraFault[]
  /** Hear every change of this process's own faults (to tell a peer process). */
  onChange(hear: (own: InfraFault[]) => void): void
  /**
   * The faults the process beside this one is retrying (`svc start`'s pipeline process, told to
   * its API process): /health names them as its own.
   */
  setPeer(faults: InfraFault[]): void
}

export function createInfraFaults(): InfraFaults {
  const faults = new Map<string, InfraFault>()
  const keyOf = (component: string, at: string) => `${component}\0${at}`
  const hearers: Array<(own: InfraFault[]) => void> = []
  let peer: InfraFault[] = []
  const own = () => [...faults.values()]
  const changed = () => {
    for (const hear of hearers) hear(own())
  }
  return {
    retrying(component, at, kind, err) {
      const key = keyOf(component, at)
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 300)
      const was = faults.get(key)
      faults.set(key, { component, at, error_class: kind, error, since: was?.since ?? new Date().toISOString(), retries: (was?.retries ?? 0) + 1 })
      changed()
    },
    cleared(component, at) {
      if (faults.delete(keyOf(component, at))) changed()
    },
    own,
    active: () => [...own(), ...peer].sort((a, b) => a.since.localeCompare(b.since)),
    onChange(hear) {
      hearers.push(hear)
    },
    setPeer(faults) {
      peer = faults
    },
  }
}
