import { z } from 'zod'

/**
 * One bus message per chain block on `chain.<id>.logs`: the block header, the contracts
 * created in it (deployer = the creating transaction's `from`) and its logs, each log
 * carrying the sender of its transaction (a trader is `tx.from`, never a router or pool).
 * A block message is atomic: a batch never holds half a block.
 */
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'address')
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, '32-byte hash')

export const ChainLog = z.object({
  logIndex: z.number().int().nonnegative(),
  txHash: hash,
  txIndex: z.number().int().nonnegative(),
  txFrom: address,
  address,
  // Topics and data are checked by the decoders, which dead-letter a malformed log of a known
  // event; checking them here too would double the parse cost of the hottest record.
  topics: z.array(z.string().length(66)).max(4),
  data: z.string().startsWith('0x'),
  /** Set by a source that saw the log removed by a reorg. */
  removed: z.boolean().optional(),
  /**
   * The `to` of the log's transaction (null: a contract creation). Set by sources of a chain that
   * attributes launches to launchpads and factories (5042): a token is launched via a pad when
   * the transaction creating or first minting it was sent to the pad.
   */
  txTo: address.nullable().optional(),
})
export type ChainLog = z.infer<typeof ChainLog>

export const ContractCreation = z.object({
  txHash: hash,
  txIndex: z.number().int().nonnegative(),
  address,
  deployer: address,
  /** ERC20 metadata read from the contract right after creation, when it answers. */
  erc20: z
    .object({
      name: z.string().max(200),
      symbol: z.string().max(100),
      decimals: z.number().int().min(0).max(255).nullable(),
    })
    .optional(),
})
export type ContractCreation = z.infer<typeof ContractCreation>

export const ChainBlock = z.object({
  chainId: z.number().int().positive(),
  number: z.number().int().nonnegative(),
  hash,
  parentHash: hash,
  /** Unix seconds. */
  timestamp: z.number().int().nonnegative(),
  creations: z.array(ContractCreation),
  /**
   * Logs of the block. On a chain that attributes launches (5042) they also hold every log the
   * configured launchpads and factories emitted, whatever its event (no ABI is assumed).
   */
  logs: z.array(ChainLog),
  /**
   * ERC20 metadata of contracts that minted (Transfer from the zero address) in this block but
   * were not created by a top-level transaction of it (a launchpad creates tokens inside its own
   * transaction). Set by sources of a chain that attributes launches.
   */
  minted: z.array(z.object({ address, erc20: ContractCreation.shape.erc20 })).optional(),
})
export type ChainBlock = z.infer<typeof ChainBlock>
