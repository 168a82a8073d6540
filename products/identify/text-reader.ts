import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createWorker, type Worker } from 'tesseract.js'
import type { Logger } from '../../core/logger.ts'

/**
 * Text off an image: Tesseract (tesseract.js, WebAssembly) with the English model shipped as
 * the npm package @tesseract.js-data/eng, so nothing is downloaded at run time. One worker per
 * process, created on first use, reading one image at a time (the machine has few cores).
 */
export interface TextReader {
  read(image: Buffer): Promise<string>
  close(): Promise<void>
}

/** Longest a read may take before the call answers 503 (the worker is then replaced). */
const READ_TIMEOUT_MS = 20_000
/** Images waiting at most; past that a call answers 503 rather than queue without bound. */
const MAX_WAITING = 8

export class TextReaderBusy extends Error {
  override name = 'TextReaderBusy'
}

const require = createRequire(import.meta.url)

export function createTextReader(logger: Logger): TextReader {
  let worker: Promise<Worker> | undefined
  let chain: Promise<unknown> = Promise.resolve()
  let waiting = 0

  const start = () => {
    const langPath = join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0')
    const started = Date.now()
    // Without an errorHandler, tesseract.js rethrows a failed job (an undecodable image) from its
    // message handler and takes the process down; the job's own promise rejects either way.
    const errorHandler = (err: unknown) => logger.debug({ err }, 'text reader: image not read')
    return createWorker('eng', 1, { langPath, gzip: true, cacheMethod: 'none', errorHandler }).then((w) => {
      logger.info({ ms: Date.now() - started }, 'text reader ready')
      return w
    })
  }

  async function readNow(image: Buffer): Promise<string> {
    worker ??= start().catch((err: unknown) => {
      worker = undefined
      throw err
    })
    const w = await worker
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TextReaderBusy(`reading the image took longer than ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS)
    })
    try {
      const { data } = await Promise.race([w.recognize(image), timeout])
      return data.text
    } catch (err) {
      // A stuck worker, or one that failed on an image, is replaced rather than reused.
      worker = undefined
      void w.terminate().catch(() => undefined)
      throw err
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    read(image) {
      if (waiting >= MAX_WAITING) return Promise.reject(new TextReaderBusy('too many images are waiting to be read'))
      waiting++
      const result = chain.then(() => readNow(image)).finally(() => waiting--)
      chain = result.catch(() => undefined)
      return result
    },
    async close() {
      const w = worker
      worker = undefined
      if (w) await (await w.catch(() => undefined))?.terminate()
    },
  }
}

declare module '../../core/endpoint/deps.ts' {
  interface ApiDeps {
    /** Text off images (/identify); absent where no image is read. */
    textReader?: TextReader
  }
}
