import { AsyncLocalStorage } from 'node:async_hooks'
import { describe, expect, it } from 'vitest'
import { backgroundRunner } from '../../core/serving/background.ts'

describe('background work a request starts', () => {
  it('runs outside the request\'s async context, through every await after it', async () => {
    const request = new AsyncLocalStorage<string>()
    const inBackground = backgroundRunner('test')
    const seen: Array<string | undefined> = []
    let done!: () => void
    const finished = new Promise<void>((r) => (done = r))
    await request.run('caller-1', async () => {
      seen.push(request.getStore())
      inBackground(() => {
        seen.push(request.getStore())
        void (async () => {
          await new Promise((r) => setTimeout(r, 5))
          seen.push(request.getStore())
          done()
        })()
      })
    })
    await finished
    expect(seen).toEqual(['caller-1', undefined, undefined])
  })
})
