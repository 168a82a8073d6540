import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { SocialSimState } from './social-sim.ts'

/**
 * Where the social simulator resumes after a restart: its state after `block`, taken when every
 * record it had published through that block was durably stored (consumed and inserted, or
 * acknowledged by a durable bus). Kept as a file beside the data, written atomically.
 *
 * The state is only valid for the world it came from: the same chain, seed, genesis time and
 * block interval. Anything else (a wiped database starts a new world with a new genesis) makes
 * the checkpoint stale, and the social world is rebuilt from block 1 instead.
 */
export interface SocialCheckpoint {
  version: 1
  chainId: number
  seed: number
  genesis: number
  blockSeconds: number
  /** The last block whose social records the state includes. */
  block: number
  state: SocialSimState
}

export type WorldId = Pick<SocialCheckpoint, 'chainId' | 'seed' | 'genesis' | 'blockSeconds'>

export function socialCheckpointPath(dataDir: string, chainId: number): string {
  return join(dataDir, 'sim', `social-${chainId}.json`)
}

/** The checkpoint at `path` if it belongs to `world`; otherwise why not (missing, stale, unreadable). */
export function readSocialCheckpoint(path: string, world: WorldId): { checkpoint: SocialCheckpoint } | { reason: string } {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return { reason: 'no social checkpoint' }
  }
  let cp: SocialCheckpoint
  try {
    cp = JSON.parse(text) as SocialCheckpoint
  } catch {
    return { reason: 'social checkpoint is not JSON' }
  }
  if (cp?.version !== 1 || typeof cp.block !== 'number' || typeof cp.state !== 'object') return { reason: 'social checkpoint has an unknown format' }
  for (const k of ['chainId', 'seed', 'genesis', 'blockSeconds'] as const) {
    if (cp[k] !== world[k]) return { reason: `social checkpoint is of another world (${k} ${cp[k]} != ${world[k]})` }
  }
  return { checkpoint: cp }
}

/** Write through a temporary file and rename, so a crash leaves the old checkpoint or the new one. */
export function writeSocialCheckpoint(path: string, cp: SocialCheckpoint): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.tmp`
  writeFileSync(tmp, JSON.stringify(cp))
  renameSync(tmp, path)
}
