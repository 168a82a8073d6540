import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Hex } from 'viem'
import { ConfigError, type Config } from '../core/config.ts'
import { PAYMENT_NETWORK } from '../core/payment-terms.ts'
import { usdToAtomic } from '../api/catalog/pricing.ts'

/**
 * `svc pay <path|url>`: one paid call through the official x402 client, the way a customer's
 * agent would make it. Progress goes to stderr; the outcome is one JSON object on stdout:
 * status, what was paid and the settlement transaction, and the response body.
 *
 * The payer is X402_PAYER_PRIVATE_KEY, or a development wallet created once in DATA_DIR.
 * `--fund 1` first asks the local payments chain's faucet (POST /admin/faucet, operator token
 * SVC_ADMIN_TOKEN) for 1 test USDC. `--max` caps what one call may cost (default 0.10 USDC).
 */

const USAGE = 'usage: svc pay <path|url> [--fund USDC] [--max USDC] [--base URL] [--method GET|POST|DELETE] [--data JSON]'
const DEFAULT_MAX_USD = '0.10'

const say = (message: string) => process.stderr.write(`svc pay: ${message}\n`)

/** The payer's key: configured, or the development wallet (created on first use, readable by its owner only). */
function payerKey(config: Config): Hex {
  if (config.X402_PAYER_PRIVATE_KEY) return config.X402_PAYER_PRIVATE_KEY as Hex
  const file = join(config.DATA_DIR, 'dev-payer.key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim() as Hex
  mkdirSync(dirname(file), { recursive: true })
  const key = generatePrivateKey()
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  say(`created a development wallet in ${file} (set X402_PAYER_PRIVATE_KEY to pay from another)`)
  return key
}

/** A USDC amount argument in 6-decimal units, or a one-line error naming the flag. */
function usdcArg(flag: string, value: string): string {
  try {
    return usdToAtomic(value)
  } catch {
    throw new ConfigError(`${flag} ${value}: expected USDC with at most 6 decimals, e.g. 0.10`)
  }
}

async function json(res: Response): Promise<unknown> {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export async function commandPay(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { fund: { type: 'string' }, max: { type: 'string' }, base: { type: 'string' }, method: { type: 'string' }, data: { type: 'string' } },
  })
  const target = positionals[0]
  if (!target) throw new ConfigError(USAGE)
  const base = values.base ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`
  const url = new URL(target, base)
  const max = values.max ?? DEFAULT_MAX_USD
  const maxAtomic = usdcArg('--max', max)
  const account = privateKeyToAccount(payerKey(config))
  say(`payer ${account.address}`)

  if (values.fund !== undefined) {
    if (!config.SVC_ADMIN_TOKEN) throw new ConfigError('--fund needs SVC_ADMIN_TOKEN (the faucet is an operator endpoint)')
    const amount = usdcArg('--fund', values.fund)
    const res = await fetch(new URL('/admin/faucet', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${config.SVC_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address: account.address, amount }),
    })
    const body = (await json(res)) as { balance?: string; transaction?: string }
    if (res.status !== 200) throw new Error(`the faucet answered ${res.status}: ${JSON.stringify(body)}`)
    say(`funded ${values.fund} test USDC (transaction ${body.transaction}); balance ${body.balance} units`)
  }

  // The asset the service charges in, from its own catalog; the client pays it up to --max.
  const catalog = (await json(await fetch(new URL('/.well-known/x402', url)))) as { asset?: { address?: string } }
  const asset = catalog.asset?.address
  if (!asset) throw new Error(`${new URL('/.well-known/x402', url)} names no payment asset`)
  const client = x402Client.fromConfig({
    schemes: [{ network: PAYMENT_NETWORK, client: new ExactEvmScheme(account) }],
    spendControls: { maxAmountPerPayment: `$${max}`, allowedAssets: [{ network: PAYMENT_NETWORK, asset, maxAmountPerPayment: maxAtomic }] },
  })
  const payingFetch = wrapFetchWithPayment(fetch, client)
  const method = (values.method ?? (values.data ? 'POST' : 'GET')).toUpperCase()
  say(`${method} ${url.href}`)
  const res = await payingFetch(url, {
    method,
    ...(values.data ? { body: values.data, headers: { 'content-type': 'application/json' } } : {}),
  })
  const settled = res.headers.get('payment-response')
  const receipt = settled ? decodePaymentResponseHeader(settled) : undefined
  const outcome = {
    status: res.status,
    paid: receipt?.success ? { payer: receipt.payer, transaction: receipt.transaction, network: receipt.network } : null,
    body: await json(res),
  }
  process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`)
  if (res.status >= 400) process.exitCode = 1
}
