import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { libchdbPath } from 'chdb/libchdb'

const SOURCE = join(import.meta.dirname, 'engine-main.c')

/**
 * The engine launcher (engine-main.c) compiled against the libchdb.so the chdb package
 * installed, built on first use and kept under SVC_INFRA_CACHE (like Kafka's and Redis's
 * installs): a few hundred milliseconds with the system's C compiler (CC, default cc).
 *
 * Why a C launcher and not an FFI binding from Node: the engine must be a process of its own
 * anyway, and a 30-line C program calls chdb_query_cmdline on its main thread with nothing else
 * in the process: no FFI package (koffi aborts on ClickHouse's stack checks), no Node thread to
 * share with the engine's signal handlers, and no prebuilt binary to match to the platform.
 *
 * The cached file's name carries a hash of the source and of the library's path, size and
 * modification time, so a chdb upgrade or a change to the launcher builds a new one.
 */
export async function engineBinary(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const lib = libchdbPath()
  const libStat = statSync(lib)
  const key = createHash('sha256')
    .update(readFileSync(SOURCE))
    .update(`${lib}\0${libStat.size}\0${libStat.mtimeMs}`)
    .digest('hex')
    .slice(0, 16)
  const cache = env.SVC_INFRA_CACHE ?? join(homedir(), '.cache', 'svc-infra')
  const binary = join(cache, 'engine', `svc-clickhouse-engine-${key}`)
  if (existsSync(binary)) return binary
  mkdirSync(dirname(binary), { recursive: true })
  // Built under a name of its own and renamed: two processes building at once never run a half-written file.
  const partial = `${binary}.${process.pid}.partial`
  const cc = env.CC || 'cc'
  const libDir = dirname(lib)
  const args = ['-O2', '-o', partial, SOURCE, `-L${libDir}`, `-l:${basename(lib)}`, `-Wl,-rpath,${libDir}`]
  try {
    await promisify(execFile)(cc, args, { timeout: 60_000 })
  } catch (err) {
    rmSync(partial, { force: true })
    const e = err as NodeJS.ErrnoException & { stderr?: string }
    if (e.code === 'ENOENT') {
      throw new Error(`it builds a small launcher with a C compiler, and ${cc} was not found: install one (apt-get install gcc) or set CC`)
    }
    throw new Error(`building its launcher failed: ${cc} ${args.join(' ')}\n${e.stderr ?? e.message}`)
  }
  renameSync(partial, binary)
  return binary
}
