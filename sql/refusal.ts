/** A query refused before it runs, with the code ClickHouse itself uses for the reason. */
export class ReadOnlyRefusal extends Error {
  override name = 'ReadOnlyRefusal'
  constructor(
    /** ClickHouse's error code (164 READONLY, 497 ACCESS_DENIED, 62 SYNTAX_ERROR). */
    readonly code: number,
    /** ClickHouse's error name for the code. */
    readonly codeName: string,
    message: string,
  ) {
    super(message)
  }
}

const CODES = { READONLY: 164, ACCESS_DENIED: 497, SYNTAX_ERROR: 62 } as const

export const refuse = (name: keyof typeof CODES, message: string): ReadOnlyRefusal => new ReadOnlyRefusal(CODES[name], name, message)
