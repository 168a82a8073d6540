import { z } from 'zod'
import { STRUCTURE_VERDICTS, STRUCTURE_VERDICT_RULES } from './structure-verdict.ts'
import { Address, BlockNumber, Measured } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { StructureBlockMissing, type StructureAnswer } from './structure-report.ts'
import { refuseWrappedEther } from './known-token.ts'
import { keptLatestStructureAnswer, latestStructureAnswer, structureAnswer } from './structure-serving.ts'
import { StructureDataView } from './structure-view.ts'

const CHAIN = 4663

export const structureEndpoint = defineEndpoint<Uses<'ch' | 'watermarks' | 'tokens' | 'quoteTokens'>>()({
  method: 'GET',
  path: '/structure/{token}',
  summary: 'Holder-structure diff',
  description:
    "A token's holders and their exact balances (wei) at the window end, the labelled 24 h holder diff and a structure verdict (signal). " +
    'The window ends at the last served block (or `as_of_block`); its baseline is the latest block whose timestamp is at most 86,400 s earlier. ' +
    "Answers are kept per token: right after a batch that changed the token, its previous answer is given (measured_through_block says through which block) while the new one is computed; `as_of_block` set to the served block waits for it. " +
    "The chain's wrapped ether is refused (400): its mints and burns are not Transfer logs. " +
    'Every wallet with a balance at either end is classed frozen, added (new_holder when it was 0), trimmed or exited. Pools and the zero address are not holders; pools are listed apart. ' +
    'Labels: deployer, insider, entity, round_allocation, identity, smart. Verdict rules: ' +
    STRUCTURE_VERDICT_RULES,
  tags: ['structure'],
  params: z.object({ token: Address }),
  query: z.object({
    as_of_block: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: 'end the window at this block (at most the last served block) instead of the last served block' }),
  }),
  response: z.object({
    signal: z.enum(STRUCTURE_VERDICTS).meta({ description: 'the structure verdict' }),
    data: StructureDataView,
    chain_id: Measured.chain_id,
    measured_through_block: BlockNumber.meta({ description: 'the window end: the block this answer is measured through' }),
  }),
  access: { kind: 'paid', price: '0.03' },
  tool: { name: 'svc_structure' },
  kept({ params, query, deps }) {
    // An answer at an earlier block, and the refusal of wrapped ether, are the handler's.
    if (query.as_of_block !== undefined || deps.quoteTokens.has(params.token)) return undefined
    const served = deps.tokens.keptThrough()
    const answer = served == null ? undefined : keptLatestStructureAnswer(deps, params.token, served)
    return answer && latestAnswer(answer)
  },
  async handler({ params, query, deps }) {
    refuseWrappedEther(deps.quoteTokens, params.token)
    // The block the kept records stand at (the last batch whose changes this process applied).
    await deps.tokens.sync()
    const served = deps.tokens.measuredThrough()
    if (served === null) throw new ApiError('dependency_unavailable', 'No chain-4663 batch is served yet; retry shortly.')
    if (query.as_of_block !== undefined && query.as_of_block > served) {
      throw new ApiError('invalid_parameter', `as_of_block ${query.as_of_block} is beyond the last served block ${served}.`, {
        parameter: 'as_of_block',
        in: 'query',
        expected: `a block number at most ${served}`,
      })
    }
    if (query.as_of_block === undefined) {
      return latestAnswer(await latestStructureAnswer(deps, params.token, served))
    }
    const toBlock = query.as_of_block
    const answer = await structureAnswer(deps, CHAIN, params.token, toBlock).catch((err: unknown) => {
      if (err instanceof StructureBlockMissing) {
        throw new ApiError('invalid_parameter', `as_of_block ${query.as_of_block} is not an ingested block.`, { parameter: 'as_of_block', in: 'query', expected: 'an ingested block number' })
      }
      throw err
    })
    return { ...answer, chain_id: CHAIN, measured_through_block: toBlock }
  },
})

/** The latest answer's envelope: the block it states is its own (a previous answer's, while the new one is computed). */
const latestAnswer = (answer: StructureAnswer) => ({ ...answer, chain_id: CHAIN, measured_through_block: answer.data.measured_through_block })
