import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader, HTTPFacilitatorClient } from '@x402/core/http'
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { getAddress, type Hex } from 'viem'
import type { Config } from '../../../core/config.ts'
import type { Logger } from '../../../core/logger.ts'
import type { Store } from '../../../core/store/types.ts'
import { usdToAtomic } from '../../catalog/pricing.ts'
import type { AnyEndpoint, RequestInfo } from '../../../core/endpoint/types.ts'
import { ApiError } from '../../../core/endpoint/errors.ts'
import type { Metrics } from '../../../core/metrics.ts'
import type { AccessGrant } from '../../../core/endpoint/grant.ts'
import { PAYMENT_ASSET, PAYMENT_NETWORK, USDC_BASE, USDC_EIP712, X402_SCHEME, X402_VERSION } from '../../../core/payment-terms.ts'
import { localFacilitatorInWorker } from './facilitator-in-worker.ts'
import type { Facilitator } from './facilitator.ts'

/**
 * x402 version 2 per-call payments, a thin adapter over the official SDK (@x402/core,
 * @x402/evm): the 402 requirements (the scheme, network and asset of ./constants.ts, our pay-to, the catalog
 * price in 6-decimal units), our own checks of a presented payment with a reason per failure,
 * verification by the facilitator before the handler, a spent-once claim in the store, and
 * settlement after the handler succeeded (its failure throws, so nothing is served). An answer
 * already in memory (an endpoint's `kept`) is settled with the facilitator's one call that
 * verifies and settles: nothing is read for an unverified payment, and the local facilitator
 * recovers the payer's signature once a call instead of twice (api/routes.ts `invokeGated`).
 *
 * Facilitator: the SDK's HTTP client when X402_FACILITATOR_URL is set; otherwise the local
 * facilitator (./local-facilitator.ts), settling on the chain at X402_NETWORK_RPC_URL, in a
 * worker thread (./facilitator-in-worker.ts).
 */

/** Seconds a client's authorization may stay valid (validBefore - now), as advertised. */
export const MAX_TIMEOUT_SECONDS = 300
/** Slack on the validity window for clock differences between client and server, seconds. */
const CLOCK_SLACK_SECONDS = 60
/** The facilitator refuses authorizations that expire within this many seconds; so do we. */
const EXPIRY_MARGIN_SECONDS = 6

/** Why a presented payment was refused; also the `error` of the 402 requirements object. */
export type PaymentRefusal =
  | 'malformed'
  | 'unsupported_version'
  | 'wrong_scheme'
  | 'wrong_network'
  | 'wrong_asset'
  | 'wrong_pay_to'
  | 'underpaid'
  | 'expired'
  | 'not_yet_valid'
  | 'validity_too_long'
  | 'invalid_signature'
  | 'insufficient_funds'
  | 'replayed'
  | 'verification_failed'
  | 'settlement_failed'
  | 'payments_not_configured'

const REFUSAL_TEXT: Record<PaymentRefusal, string> = {
  malformed: 'the payment header is not a valid x402 exact EVM payment',
  unsupported_version: `only x402 version ${X402_VERSION} is accepted`,
  wrong_scheme: `the payment scheme is not ${X402_SCHEME}`,
  wrong_network: `the payment is not on ${PAYMENT_NETWORK}`,
  wrong_asset: `the payment asset is not ${PAYMENT_ASSET}`,
  wrong_pay_to: 'the payment is not made out to this service',
  underpaid: 'the payment is less than the price',
  expired: 'the payment authorization has expired',
  not_yet_valid: 'the payment authorization is not valid yet',
  validity_too_long: `the payment authorization is valid for longer than ${MAX_TIMEOUT_SECONDS} s`,
  invalid_signature: 'the payment signature is not valid',
  insufficient_funds: `the payer does not hold enough ${PAYMENT_ASSET}`,
  replayed: 'this payment authorization was already used',
  verification_failed: 'the facilitator refused the payment',
  settlement_failed: 'the payment could not be settled; nothing was charged for data',
  payments_not_configured: 'payments are not configured on this server',
}


export interface X402PaymentsDeps {
  config: Pick<Config, 'X402_PAY_TO' | 'X402_FACILITATOR_URL' | 'X402_NETWORK_RPC_URL' | 'X402_ASSET' | 'X402_FACILITATOR_PRIVATE_KEY'>
  store: Store
  logger: Logger
  /** Where verify and settle outcomes and the facilitator's time are counted. */
  metrics?: Pick<Metrics, 'x402' | 'x402Duration'>
}

export interface X402Payments {
  /** True when pay-to and a facilitator (URL or local chain RPC) are configured. */
  readonly enabled: boolean
  /** The x402 v2 PaymentRequired object for a call at `price` (USD) of `resourceUrl`. */
  requirements(endpoint: AnyEndpoint, price: string, resourceUrl: string, reason?: PaymentRefusal): PaymentRequired
  /** 402 payment_required with PAYMENT-REQUIRED (base64 of the requirements) and the same object as details. */
  paymentRequiredError(endpoint: AnyEndpoint, price: string, resourceUrl: string, reason?: PaymentRefusal): ApiError
  /**
   * A grant for a valid payment (PAYMENT-SIGNATURE, or the legacy X-Payment header); null when
   * the request carries none. Throws payment_required naming the reason when the payment is
   * refused, dependency_unavailable when the facilitator cannot be reached. With `verifyLater`
   * (and a facilitator that verifies and settles in one call) the payment's own checks are made
   * and the facilitator's are left to the grant: its `verify()`, or its `settle()` alone.
   */
  admit(endpoint: AnyEndpoint, price: string, request: RequestInfo, resourceUrl: string, verifyLater?: boolean): Promise<AccessGrant | null>
}

interface Eip3009Authorization {
  from: string
  to: string
  value: string
  validAfter: string
  validBefore: string
  nonce: string
}

function headerOf(request: RequestInfo, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()]
  return (Array.isArray(v) ? v[0] : v)?.trim() || undefined
}

const isAddress = (s: unknown): s is string => typeof s === 'string' && /^0x[0-9a-fA-F]{40}$/.test(s)
const isUint = (s: unknown): s is string => typeof s === 'string' && /^\d{1,78}$/.test(s)

function authorizationOf(payload: PaymentPayload): Eip3009Authorization | null {
  const p = payload.payload as { authorization?: Partial<Eip3009Authorization>; signature?: unknown } | undefined
  const a = p?.authorization
  if (!a || typeof p.signature !== 'string' || !/^0x[0-9a-fA-F]+$/.test(p.signature)) return null
  if (!isAddress(a.from) || !isAddress(a.to)) return null
  if (!isUint(a.value) || !isUint(a.validAfter) || !isUint(a.validBefore)) return null
  if (typeof a.nonce !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(a.nonce)) return null
  return a as Eip3009Authorization
}

/** The facilitator's reasons in ours. */
function refusalFromFacilitator(reason: string | undefined): PaymentRefusal {
  switch (reason) {
    case 'invalid_exact_evm_network_mismatch':
      return 'wrong_network'
    case 'invalid_exact_evm_recipient_mismatch':
      return 'wrong_pay_to'
    case 'invalid_exact_evm_payload_authorization_value_mismatch':
    case 'invalid_exact_evm_authorization_value':
      return 'underpaid'
    case 'invalid_exact_evm_payload_authorization_valid_before':
      return 'expired'
    case 'invalid_exact_evm_payload_authorization_valid_after':
      return 'not_yet_valid'
    case 'invalid_exact_evm_signature':
    case 'invalid_exact_evm_failed_to_parse_signature':
      return 'invalid_signature'
    case 'invalid_exact_evm_nonce_already_used':
      return 'replayed'
    case 'invalid_exact_evm_insufficient_balance':
      return 'insufficient_funds'
    case 'asset_not_deployed_contract':
    case 'invalid_exact_evm_eip3009_not_supported':
    case 'invalid_exact_evm_token_name_mismatch':
    case 'invalid_exact_evm_token_version_mismatch':
      return 'wrong_asset'
    default:
      return 'verification_failed'
  }
}

export function createX402Payments(deps: X402PaymentsDeps, opts: { facilitator?: Facilitator } = {}): X402Payments {
  const { config, store, logger, metrics } = deps
  const network = PAYMENT_NETWORK
  /** A facilitator call, timed. */
  const timed = async <T>(step: 'verify' | 'settle' | 'verify_and_settle', call: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await call()
    } finally {
      metrics?.x402Duration.observe({ step }, (performance.now() - started) / 1000)
    }
  }
  const asset = (config.X402_ASSET ?? USDC_BASE).toLowerCase()
  const payTo = config.X402_PAY_TO ? getAddress(config.X402_PAY_TO) : undefined
  const facilitator: Facilitator | undefined =
    opts.facilitator ??
    (config.X402_FACILITATOR_URL
      ? new HTTPFacilitatorClient({ url: config.X402_FACILITATOR_URL })
      : config.X402_NETWORK_RPC_URL
        ? localFacilitatorInWorker({ rpcUrl: config.X402_NETWORK_RPC_URL, network, privateKey: config.X402_FACILITATOR_PRIVATE_KEY as Hex | undefined, logLevel: logger.level })
        : undefined)
  const enabled = Boolean(payTo && facilitator)

  function accepted(price: string): PaymentRequirements {
    return {
      scheme: X402_SCHEME,
      network: network as PaymentRequirements['network'],
      asset: getAddress(asset),
      amount: usdToAtomic(price),
      payTo: payTo ?? '',
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      extra: { name: USDC_EIP712.name, version: USDC_EIP712.version },
    }
  }

  function requirements(endpoint: AnyEndpoint, price: string, resourceUrl: string, reason?: PaymentRefusal): PaymentRequired {
    return {
      x402Version: X402_VERSION,
      ...(reason ? { error: reason } : {}),
      resource: { url: resourceUrl, description: endpoint.summary, mimeType: endpoint.produces ?? 'application/json' },
      accepts: payTo ? [accepted(price)] : [],
    }
  }

  function paymentRequiredError(endpoint: AnyEndpoint, price: string, resourceUrl: string, reason?: PaymentRefusal): ApiError {
    const required = requirements(endpoint, price, resourceUrl, reason)
    const message = reason
      ? `Payment refused (${reason}): ${REFUSAL_TEXT[reason]}. Settle ${price} ${PAYMENT_ASSET} on ${network} over x402 and retry.`
      : `Payment required: ${price} ${PAYMENT_ASSET} on ${network} over x402 (PAYMENT-REQUIRED header); retry with PAYMENT-SIGNATURE.`
    return new ApiError('payment_required', message, required as unknown as Record<string, unknown>, {
      'PAYMENT-REQUIRED': encodePaymentRequiredHeader(required),
    })
  }

  async function admit(endpoint: AnyEndpoint, price: string, request: RequestInfo, resourceUrl: string, verifyLater = false): Promise<AccessGrant | null> {
    const raw = headerOf(request, 'payment-signature') ?? headerOf(request, 'x-payment')
    if (raw === undefined) return null
    const refuse = (reason: PaymentRefusal, extra?: Record<string, unknown>) => {
      metrics?.x402.inc({ step: reason === 'settlement_failed' ? 'settle' : 'verify', outcome: reason })
      if (extra) logger.info({ path: endpoint.path, reason, ...extra }, 'x402 payment refused')
      return paymentRequiredError(endpoint, price, resourceUrl, reason)
    }
    if (!enabled || !facilitator || !payTo) throw refuse('payments_not_configured')

    let payload: PaymentPayload
    try {
      payload = decodePaymentSignatureHeader(raw)
    } catch {
      throw refuse('malformed')
    }
    if (!payload || typeof payload !== 'object' || !payload.accepted || typeof payload.accepted !== 'object') throw refuse('malformed')
    if (payload.x402Version !== X402_VERSION) throw refuse('unsupported_version')
    const offer = payload.accepted
    if (offer.scheme !== X402_SCHEME) throw refuse('wrong_scheme')
    if (offer.network !== network) throw refuse('wrong_network')
    if (!isAddress(offer.asset) || offer.asset.toLowerCase() !== asset) throw refuse('wrong_asset')
    const auth = authorizationOf(payload)
    if (!auth) throw refuse('malformed')
    if (getAddress(auth.to) !== payTo || !isAddress(offer.payTo) || getAddress(offer.payTo) !== payTo) throw refuse('wrong_pay_to')
    const due = BigInt(usdToAtomic(price))
    const value = BigInt(auth.value)
    if (value < due) throw refuse('underpaid')
    const now = Math.floor(Date.now() / 1000)
    const validBefore = BigInt(auth.validBefore)
    if (validBefore < BigInt(now + EXPIRY_MARGIN_SECONDS)) throw refuse('expired')
    if (BigInt(auth.validAfter) > BigInt(now)) throw refuse('not_yet_valid')
    if (validBefore > BigInt(now + MAX_TIMEOUT_SECONDS + CLOCK_SLACK_SECONDS)) throw refuse('validity_too_long')

    // An authorization is spent once: keyed by token, payer and EIP-3009 nonce (what the token
    // itself keys it by), kept until well after the authorization can no longer be used.
    const spentKey = `x402:spent:${network}:${asset}:${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`
    const spentTtlMs = (Number(validBefore) - now + CLOCK_SLACK_SECONDS) * 1000
    if ((await store.get(spentKey)) !== null) throw refuse('replayed')

    // The facilitator checks signature, recipient, window and balance against what we ask for;
    // a payment above the price is settled for its full authorized value.
    const required: PaymentRequirements = { ...accepted(price), amount: value.toString() }
    const claim = async () => {
      if (!(await store.setIfAbsent(spentKey, JSON.stringify({ at: Date.now(), path: endpoint.path }), spentTtlMs))) throw refuse('replayed')
    }
    const settled = (response: SettleResponse) => {
      metrics?.x402.inc({ step: 'settle', outcome: 'settled' })
      logger.info({ path: endpoint.path, payer: response.payer, transaction: response.transaction as Hex, amount: value.toString() }, 'x402 payment settled')
      return { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(response) }
    }

    async function verify(): Promise<void> {
      let verified: VerifyResponse
      try {
        verified = await timed('verify', () => facilitator!.verify(payload, required))
      } catch (error) {
        metrics?.x402.inc({ step: 'verify', outcome: 'error' })
        logger.warn({ err: error, path: endpoint.path }, 'x402 verification failed to run')
        throw new ApiError('dependency_unavailable', 'The payment facilitator could not verify the payment; retry shortly.')
      }
      if (!verified.isValid) {
        throw refuse(refusalFromFacilitator(verified.invalidReason), { facilitatorReason: verified.invalidReason, payer: verified.payer })
      }
      metrics?.x402.inc({ step: 'verify', outcome: 'valid' })
      await claim()
    }

    async function settleVerified(): Promise<Record<string, string>> {
      let response: SettleResponse
      try {
        response = await timed('settle', () => facilitator!.settle(payload, required))
      } catch (error) {
        logger.error({ err: error, path: endpoint.path, payer: auth!.from }, 'x402 settlement failed to run')
        throw refuse('settlement_failed')
      }
      if (!response.success) {
        throw refuse('settlement_failed', { facilitatorReason: response.errorReason, payer: auth!.from, transaction: response.transaction })
      }
      return settled(response)
    }

    /** The facilitator's one call that verifies (every check verify makes) and settles. */
    async function verifyAndSettle(whole: NonNullable<Facilitator['verifyAndSettle']>): Promise<Record<string, string>> {
      await claim()
      // Unsettled, the claim is withdrawn, as on the verify path, where a refusal or a verify that
      // fails to run comes before any claim: the payment may be presented again (the token spends
      // an authorization once, and nothing is served without a settlement).
      const withdraw = () => store.del(spentKey).catch(() => {})
      let response: SettleResponse
      try {
        response = await timed('verify_and_settle', () => whole(payload, required))
      } catch (error) {
        await withdraw()
        metrics?.x402.inc({ step: 'settle', outcome: 'error' })
        logger.warn({ err: error, path: endpoint.path }, 'x402 verification and settlement failed to run')
        throw new ApiError('dependency_unavailable', 'The payment facilitator could not verify the payment; retry shortly.')
      }
      if (!response.success) {
        await withdraw()
        const reason = refusalFromFacilitator(response.errorReason)
        throw refuse(reason === 'verification_failed' ? 'settlement_failed' : reason, { facilitatorReason: response.errorReason, payer: auth!.from, transaction: response.transaction })
      }
      metrics?.x402.inc({ step: 'verify', outcome: 'valid' })
      return settled(response)
    }

    if (!verifyLater || !facilitator.verifyAndSettle) {
      await verify()
      return { via: 'payment', price, settle: settleVerified }
    }
    const whole = facilitator.verifyAndSettle.bind(facilitator)
    let verified = false
    return {
      via: 'payment',
      price,
      async verify() {
        if (verified) return
        await verify()
        verified = true
      },
      settle: () => (verified ? settleVerified() : verifyAndSettle(whole)),
    }
  }

  return { enabled, requirements, paymentRequiredError, admit }
}
