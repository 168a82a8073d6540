import { z } from 'zod'
import { entityRecord, ENTITY_SNAPSHOTS_PER_TOKEN, ENTITY_TOKENS_LIMIT, ENTITY_WALLETS_LIMIT } from './entity-record.ts'
import { Address, BlockNumber, Measured, Wei } from '../../core/endpoint/schemas.ts'
import { defineEndpoint } from '../../core/endpoint/types.ts'
import type { Uses } from '../../core/endpoint/deps.ts'
import { ApiError } from '../../core/endpoint/errors.ts'
import { DeployerView, deployerView } from '../token/deployer-view.ts'
import { HolderLabelView } from './structure-view.ts'

const CHAIN = 4663

export const entityEndpoint = defineEndpoint<Uses<'ch' | 'cache' | 'watermarks' | 'tokens'>>()({
  method: 'GET',
  path: '/entity/{address}',
  summary: 'Wallet entity',
  description:
    "The entity the wallet belongs to, its wallets, and their appearances across the holder-snapshot archive (every structure scan archives the wallets it names): per token, the balance at each snapshot and now, with the identity, insider and deployer records. The entity rule is the holder structure's (wallets linked by direct off-market transfers of a token, not through the deployer or a hub; id = the lowest address), joined across the tokens the wallet appears in. `found` is false for a wallet the archive never named and that deployed nothing.",
  tags: ['structure'],
  params: z.object({ address: Address }),
  response: z.object({
    data: z.object({
      address: z.string(),
      found: z.boolean(),
      entity: z
        .object({ entity_id: z.string(), wallets: z.array(z.string()), truncated: z.boolean() })
        .nullable()
        .meta({ description: `the linked wallets (at most ${ENTITY_WALLETS_LIMIT}); null when the wallet is linked to no other` }),
      wallets: z.array(z.object({ address: z.string(), identity: z.string().nullable().meta({ description: 'a linked social handle' }), deployer_record: DeployerView })),
      appearances: z
        .array(
          z.object({
            wallet: z.string(),
            token: z.string(),
            snapshots: z.array(z.object({ measured_through_block: BlockNumber, balance_wei: Wei.meta({ description: 'the balance then' }), labels: z.array(HolderLabelView) })),
            balance_now_wei: Wei,
            insider: HolderLabelView.nullable().meta({ description: 'the insider record of the newest snapshot' }),
            deployer: z.boolean(),
          }),
        )
        .meta({ description: `per wallet and token (at most ${ENTITY_TOKENS_LIMIT} tokens of the address, ${ENTITY_SNAPSHOTS_PER_TOKEN} snapshots each), newest first` }),
    }),
    ...Measured,
  }),
  access: { kind: 'paid', price: '0.05' },
  async handler({ params, deps }) {
    const served = deps.watermarks.get(CHAIN)
    if (served === null) throw new ApiError('dependency_unavailable', 'No chain-4663 batch is served yet; retry shortly.')
    const record = await deps.cache.get(`entity:${CHAIN}:${params.address}:${served}`, deps.watermarks.version(CHAIN), () => entityRecord(deps.ch, CHAIN, params.address, served))
    const wallets = record.entity?.wallets ?? [params.address]
    const deployers = await deps.tokens.deployers(wallets)
    return {
      data: {
        address: record.address,
        found: record.found || deployers.size > 0,
        entity: record.entity,
        wallets: wallets.map((w) => ({ address: w, identity: record.identities[w] ?? null, deployer_record: deployerView(w, deployers.get(w)) })),
        appearances: record.appearances,
      },
      chain_id: CHAIN,
      measured_through_block: served,
    }
  },
})
