/**
 * Messaging-room sightings (rooms are never named, no text is kept): a token's room record is
 * reportable from TG_K_THRESHOLD distinct rooms on, and the rooms "led" when their first
 * sighting came before the social network's first mention.
 */
export const TG_K_THRESHOLD = 3

/** A token's room record: distinct rooms, sightings, first sighting (unix seconds). */
export interface RoomRecord {
  rooms: number
  messages: number
  firstAt: number | null
}

/** Whether the record is count-gated in: enough rooms, and a first sighting. */
export function roomRecordReportable(r: RoomRecord | undefined): r is RoomRecord & { firstAt: number } {
  return r !== undefined && r.rooms >= TG_K_THRESHOLD && r.firstAt !== null
}

/** Did the messaging rooms carry the token first? null when the record is not reportable. */
export function roomsLed(r: RoomRecord | undefined, firstMention: number | undefined): boolean | null {
  if (!roomRecordReportable(r)) return null
  return firstMention === undefined || r.firstAt < firstMention
}
