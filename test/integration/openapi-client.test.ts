import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../core/clickhouse.ts'
import { startEmbedded, TEST_ADMIN_TOKEN, type Embedded } from '../setup/embedded.ts'

/**
 * A client nobody here wrote: types generated from the served /openapi.json by
 * openapi-typescript (its CLI, as an integrator runs it), calls made with openapi-fetch. The
 * client program is type-checked with tsc against the generated types (so a document that
 * generates `unknown` or loses the error schema fails here), then run against the app.
 */
const run = promisify(execFile)
const repoRoot = fileURLToPath(new URL('../../', import.meta.url))
const bin = (name: string) => join(repoRoot, 'node_modules/.bin', name)

// What an integrator writes against the generated `paths`. Every annotation below is checked by
// tsc: a wrong field or a body typed `unknown` is a compile error, and so is a 402 whose error
// body is not the documented Error schema (the @ts-expect-error line must stay an error).
const CLIENT = `
import createClient from 'openapi-fetch'
import type { components, paths } from './schema.ts'

type ErrorCode = components['schemas']['Error']['error']['code']

export async function calls(baseUrl: string, adminToken: string, token: string) {
  const client = createClient<paths>({ baseUrl })
  const health = await client.GET('/health')
  const ready: 'ok' | 'degraded' | undefined = health.data?.status

  const issued = await client.POST('/admin/keys', { body: { plan: 'signal_feed' }, headers: { authorization: 'Bearer ' + adminToken } })
  const key: string = issued.data!.key

  const paid = await client.GET('/token/{address}', { params: { path: { address: token } }, headers: { 'x-svc-key': key } })
  const found: boolean | undefined = paid.data?.data.found
  const swaps: number | undefined = paid.data?.data.swaps

  const unpaid = await client.GET('/token/{address}', { params: { path: { address: token } } })
  const code: ErrorCode | undefined = unpaid.error?.error.code
  // @ts-expect-error the error body is the Error schema: it has no such field
  void unpaid.error?.error.no_such_field

  return {
    health: { status: health.response.status, ready },
    paid: { status: paid.response.status, found, swaps },
    unpaid: { status: unpaid.response.status, code, hasData: unpaid.data !== undefined },
  }
}
`

let env: Embedded
let base: string
let token: string
// Inside the repo (.cache is ignored by git) so the program resolves openapi-fetch from node_modules.
let dir: string

beforeAll(async () => {
  env = await startEmbedded({ PIPELINE_BATCH_BLOCKS: '100' })
  await env.ingestThrough(100)
  base = await env.api.app.listen({ port: 0, host: '127.0.0.1' })
  const [t] = await queryRows<{ token: string }>(env.rt.ch, 'SELECT token FROM swaps GROUP BY token ORDER BY count() DESC LIMIT 1')
  token = t!.token
  mkdirSync(join(repoRoot, '.cache'), { recursive: true })
  dir = mkdtempSync(join(repoRoot, '.cache', 'openapi-client-'))
})
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  await env?.close()
})

describe('a client generated from /openapi.json', () => {
  it('openapi-typescript + openapi-fetch: a free call, a paid call with a key, a typed 402 without one', async () => {
    const schema = join(dir, 'schema.ts')
    await run(bin('openapi-typescript'), [`${base}/openapi.json`, '-o', schema], { env: { ...process.env, NO_COLOR: '1' } })

    const program = join(dir, 'client.ts')
    writeFileSync(program, CLIENT)
    const tsc = await run(bin('tsc'), ['--noEmit', '--strict', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--allowImportingTsExtensions', '--skipLibCheck', '--types', 'node', program], { cwd: repoRoot }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? String(e) }))
    expect(tsc.stdout).toBe('')

    const client = (await import(program)) as { calls(baseUrl: string, adminToken: string, token: string): Promise<Record<string, Record<string, unknown>>> }
    const result = await client.calls(base, TEST_ADMIN_TOKEN, token)
    expect(result.health).toEqual({ status: 200, ready: 'ok' })
    expect(result.paid).toMatchObject({ status: 200, found: true })
    expect(result.paid.swaps).toBeGreaterThan(0)
    expect(result.unpaid).toEqual({ status: 402, code: 'payment_required', hasData: false })
  })
})
