/**
 * When a watched token's holder structure "flips" (the `structure_flip` alert): its verdict in a
 * structure scan differs from the verdict of its previous archived snapshot, both being
 * measured verdicts (rotation, distribution, accumulation). A change from or to
 * `insufficient_data` is not a flip: the structure was not measured on one side.
 */
export const UNMEASURED_VERDICT = 'insufficient_data'

export function isStructureFlip(previous: string | null, next: string): boolean {
  return previous !== null && previous !== next && previous !== UNMEASURED_VERDICT && next !== UNMEASURED_VERDICT
}
