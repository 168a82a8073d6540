import { SCORE_BANDS } from '../products/token/deployer-score.ts'
import { REAL_DEAD_IN_WORDS as W } from '../products/token/real-token.ts'
import { PAYMENT_ASSET, PAYMENT_NETWORK, X402_SCHEME, X402_VERSION } from '../core/payment-terms.ts'

/** "0-29 `poor`, 30-49 `weak`, ...": each band from its minimum to one below the next band's, lowest first. */
const bandsText = SCORE_BANDS.map((b, i) => `${b.min}-${i === 0 ? 100 : SCORE_BANDS[i - 1]!.min - 1} \`${b.band}\``)
  .reverse()
  .join(', ')

/**
 * Our definitions where the contract says "not shown" (DESIGN §7), served as the OpenAPI
 * description so that every one of them is documented where clients look.
 */
export const DEFINITIONS_MARKDOWN = `
Chain Intelligence API: deployer reputation, caller accuracy, token risk, measured on chain 4663
(and chain 5042 under /arc). The service publishes measurements and inputs, not predictions.

## Access
- Free endpoints need nothing. Paid endpoints answer **402** with a \`PAYMENT-REQUIRED\` header
  (base64 JSON, x402 version ${X402_VERSION}, scheme \`${X402_SCHEME}\`, network \`${PAYMENT_NETWORK}\`, asset ${PAYMENT_ASSET}); retry with
  \`PAYMENT-SIGNATURE\` (legacy \`X-Payment\` accepted). Paid endpoints fail closed: when payment cannot
  be verified, no data is served. Prices per call are in each operation (\`x-price-usd\`).
- Subscription keys go in \`x-svc-key\` or \`Authorization: Bearer\`, never in the URL (a key in a query
  string answers 400 \`key_in_url\`). Keys are \`svc_live_\` + 32 base62 characters, stored hashed, shown once.

## Errors
Every error body is \`{"error":{"code":"snake_case","message":"human sentence","details":{...}}}\`.
The codes and their statuses are listed in \`components.schemas.Error\`. Unknown entities are not
errors: a lookup of an unknown wallet or token answers 200 with \`found:false\`.
Addresses are accepted in any case and answered lowercase; handles with or without \`@\`.

## Definitions
- Amounts in wei are exact decimal strings.
- Every chain-derived answer states \`measured_through_block\`: the last block fully ingested.
- A token's deployer is the \`from\` of the transaction that created its contract. A trader is the \`from\`
  of the transaction that contains the swap (never the router or a pool).
- WETH volume of a swap: the WETH amount in plus the WETH amount out of that pool event.
- A token is real once, in one block, it has at least ${W.swaps} swaps, ${W.traders} distinct traders and ${W.weth} WETH of volume;
  that block is recorded. Dead: no swap for ${W.idleHours} h, or more than ${W.removedPercent}% of its liquidity removed.
- Verdict \`signal\`: \`low_risk\`, \`moderate_risk\`, \`high_risk\`, \`avoid\`; \`confidence\` in [0,1].
- Deployer score bands: ${bandsText}.
- Caller grade from a 0-100 caller score: A >= 75, B >= 55, C >= 35, else D; a caller is measured with
  at least 4 graded calls.
- A call is an account's first mention of a token (a contract address, or a cashtag that names exactly
  one token; an ambiguous cashtag is recorded as ambiguous and never guessed). A call is graded once the
  chain has run an hour past it: entry = the first swap price at or after the call, exit = the last swap
  price at or before call + 1 h, 1 h forward return = exit / entry − 1.
- The run of a token is its becoming real. early_rate: share of graded calls placed before the run;
  momentum_rate: share placed after it began; hit_rate_1h: share with a positive 1 h return.
- Caller score = round(100 × (0.5 × early_rate + 0.3 × hit_rate_1h + 0.2 × clamp(0.5 + median 1 h return, 0, 1))).
  rank_score (/signals/calls) = score / 100.
- Mutual-follow clusters: connected accounts that follow each other (from tracked follow snapshots);
  a cluster counts as one voice, and its members are "coordinated" (left out of /signals/calls unless
  include_coordinated=true).
- Social windows (velocity_24h, momentum hours) end with the hour of the newest mention (the firehose clock).
- Messaging rooms: a token's record is reportable from k_threshold = 3 distinct rooms; rooms are opaque
  ids, never named; no message text is kept.
- Follow polls run about every 6 hours; a transition is dated by the poll that saw it (observed_at),
  with the poll before it (previous_poll). Cursors of /social/follows and /signals/calls are inclusive:
  dedupe by id; items sharing a timestamp are delivered together.
- Structure verdict: \`rotation\`, \`distribution\`, \`accumulation\`, or \`insufficient_data\`.
- Tracked roster: the wallets on the ingested third-party leaderboard (at most 100).
- FIFO: buys open lots at their WETH cost; sells close lots first in, first out; a partial exit is a sell
  of its own. In a routed trade the intermediate hop is a sell of A and a buy of B at the intermediate WETH amount.
- /leaderboard: deployers ranked by score. /callers: measured callers ranked by caller score.
- /basket: launches whose verdict 15 minutes after launch is \`low_risk\`, entered at the then price,
  marked at 1 h, 24 h and 7 d; measured, never projected.
- /proof.json: per verdict signal, token count, share that became real, share dead within 7 days,
  median 24 h return, with the window and the block measured through.
- Scan jobs (POST /structure, POST /forensics): \`queued\`, \`running\`, \`done\`, \`failed\`.
- Free caller-card cap: 30 requests per minute per IP (then 429 with Retry-After).
- Feed and stream \`limit\`: default 50, max 200.
`.trim()
