import type { VerdictSignals } from '../../core/domain/verdict.ts'
import { verdictSignals } from '../../core/records/verdict-signals.ts'
import type { TokenRecord } from '../../core/records/token-state.ts'
import type { ApiDeps } from '../deps.ts'

/** A token's verdict signals (core/records/verdict-signals.ts), cached per key until the chain or social data move. */
export function tokenVerdictSignals(deps: Pick<ApiDeps, 'ch' | 'cache' | 'watermarks' | 'tokens'>, t: TokenRecord): Promise<VerdictSignals> {
  return deps.cache.get(`verdict-signals:${t.token}`, deps.watermarks.socialChainVersion(deps.tokens.chainId), () => verdictSignals(deps.ch, deps.tokens.chainId, t))
}
