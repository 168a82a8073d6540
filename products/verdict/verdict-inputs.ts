import type { VerdictInputs, VerdictSignals } from './verdict.ts'
import type { DeployerRecord } from '../token/deployer-state.ts'
import type { TokenRecord } from '../token/token-state.ts'

/** The verdict's inputs: the token's record and its deployer's record (whose counts include this token). */
export function verdictInputs(t: TokenRecord, d: DeployerRecord | undefined, signals?: VerdictSignals): VerdictInputs {
  const own = t.launch !== null && d !== undefined && t.deployer === d.deployer
  return {
    launched: t.launch !== null,
    swaps: t.swaps,
    traders: t.traders,
    wethVolumeWei: t.wethVolumeWei,
    realBlock: t.realBlock,
    dead: t.dead,
    lastActivityAt: t.lastSwapAt ?? t.launch?.launchedAt ?? null,
    liquidityAdded: t.liquidityAdded,
    liquidityRemoved: t.liquidityRemoved,
    insiderPrep: t.insiderPrep,
    deployer: t.deployer
      ? {
          score: d?.score ?? null,
          band: d?.band ?? null,
          otherLaunched: Math.max(0, (d?.launched ?? 0) - (own ? 1 : 0)),
          otherDead: Math.max(0, (d?.dead ?? 0) - (own && t.dead ? 1 : 0)),
          otherInsiderPrep: (d?.insiderPrepLaunches ?? 0) - (own && t.insiderPrep ? 1 : 0) > 0,
        }
      : null,
    ...(signals ? { signals } : {}),
  }
}
