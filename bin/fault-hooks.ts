import { closeSync, existsSync, openSync } from 'node:fs'
import type { SinkHooks } from '../pipelines/sink/clickhouse-sink.ts'

/**
 * Test-only fault injection into the chain sink, chosen by SVC_FAULT:
 *  - `crash-after-insert:<table>:<n>` kills the process with SIGKILL right after the n-th
 *    acknowledged insert into <table>, i.e. in the middle of a batch;
 *  - `exhaust-fds:<table>:<n>:<ms>` right after the n-th insert into <table>, opens files until
 *    the process has no descriptor left (EMFILE), holds them for <ms> and then closes them: what a
 *    flood of connections does to the engine, the sink and the bus, for real;
 *  - `exhaust-fds-on-file:<path>:<ms>` the same, after the first insert into any table once
 *    <path> exists: a test decides when (its service is up and watched), not a count of inserts
 *    whose timing depends on the machine. While the descriptors are held, each insert's caller
 *    then opens one (and closes it): a process whose engine connections were all open already
 *    needed no new descriptor for the whole window on a loaded machine, and no part of it met the
 *    fault it was meant to meet (1 run in 3 under two busy loops, stop 78).
 */
export function faultHooks(fault = process.env.SVC_FAULT ?? ''): SinkHooks | undefined {
  const onFile = /^exhaust-fds-on-file:([^:]+):(\d+)$/.exec(fault)
  if (onFile) {
    let heldUntil: number | undefined
    return {
      afterInsert() {
        if (heldUntil !== undefined) {
          // EMFILE for real while they are held: the batch fails and is retried as any would.
          if (Date.now() < heldUntil) closeSync(openSync('/dev/null', 'r'))
          return
        }
        if (!existsSync(onFile[1]!)) return
        heldUntil = Date.now() + Number(onFile[2])
        exhaustDescriptors(Number(onFile[2]))
      },
    }
  }
  const crash = /^crash-after-insert:(\w+):(\d+)$/.exec(fault)
  const exhaust = /^exhaust-fds:(\w+):(\d+):(\d+)$/.exec(fault)
  const m = crash ?? exhaust
  if (!m) return undefined
  let seen = 0
  return {
    afterInsert(table: string) {
      if (table !== m[1] || ++seen !== Number(m[2])) return
      if (crash) process.kill(process.pid, 'SIGKILL')
      else exhaustDescriptors(Number(exhaust![3]))
    },
  }
}

/** Open /dev/null until the process is out of descriptors; close them all after `ms`. */
function exhaustDescriptors(ms: number): void {
  const held: number[] = []
  for (;;) {
    try {
      held.push(openSync('/dev/null', 'r'))
    } catch (err) {
      process.stderr.write(`SVC_FAULT: holding ${held.length} descriptors for ${ms} ms (${(err as NodeJS.ErrnoException).code})\n`)
      break
    }
  }
  setTimeout(() => {
    for (const fd of held) closeSync(fd)
    process.stderr.write(`SVC_FAULT: released ${held.length} descriptors\n`)
  }, ms)
}
