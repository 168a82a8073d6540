/** The venue key of a chain-5042 launch made directly (not through a launch pad or factory). */
export const DIRECT = ''
/** The venue key under which counts over every launch are kept. */
export const ALL_VENUES = '*'
