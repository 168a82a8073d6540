import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * A module that imports, even for types only, a module that imports it back cannot be read or
 * changed on its own (the catalog's types once depended on the gate, which depended on them).
 * Walks the relative imports of the source folders and fails on any cycle.
 */

const root = join(import.meta.dirname, '../..')
const FOLDERS = ['api', 'products', 'core', 'pipelines', 'sql', 'mcp', 'bin']

/**
 * What each top folder may import besides itself: the arrows run one way, bin -> api/mcp ->
 * products -> sql -> core and bin -> pipelines -> products (docs/architecture.md). A product never
 * reaches up into the API or the pipeline that use it, and the API never into the pipeline.
 */
const MAY_IMPORT: Record<string, string[]> = {
  core: [],
  sql: ['core'],
  products: ['sql', 'core'],
  pipelines: ['products', 'sql', 'core'],
  api: ['products', 'sql', 'core'],
  mcp: ['api', 'products', 'sql', 'core'],
  bin: ['api', 'mcp', 'pipelines', 'products', 'sql', 'core', 'infra'],
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name)
    if (d.isDirectory()) return sources(p)
    return d.name.endsWith('.ts') && !d.name.endsWith('.d.ts') ? [p] : []
  })
}

/** The files a module imports or re-exports by relative path (`import type` included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/gm), ...text.matchAll(/import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g)]
  return specs.map((m) => resolve(dirname(file), m[1]!))
}

/** One cycle of the graph as a list of files, or null when it has none (depth-first, three colours). */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string): string[] | null => {
    state.set(f, 'open')
    stack.push(f)
    for (const g of graph.get(f) ?? []) {
      if (!graph.has(g)) continue
      if (state.get(g) === 'open') return [...stack.slice(stack.indexOf(g)), g]
      if (!state.has(g)) {
        const c = visit(g)
        if (c) return c
      }
    }
    stack.pop()
    state.set(f, 'done')
    return null
  }
  for (const f of graph.keys()) {
    if (state.has(f)) continue
    const c = visit(f)
    if (c) return c
  }
  return null
}

describe('imports', () => {
  it('findCycle() finds a cycle and passes a tree', () => {
    expect(findCycle(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual(['a', 'b', 'c', 'a'])
    expect(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toBeNull()
  })

  it('the source folders import each other without a cycle', () => {
    const files = FOLDERS.flatMap((d) => sources(join(root, d)))
    const graph = new Map(files.map((f) => [f, importsOf(f)]))
    const cycle = findCycle(graph)
    expect(cycle?.map((f) => relative(root, f)) ?? null).toBeNull()
  })

  it('every arrow runs down: no folder imports one above it', () => {
    const upward: string[] = []
    for (const folder of FOLDERS) {
      for (const file of sources(join(root, folder))) {
        for (const target of importsOf(file)) {
          const to = relative(root, target).split('/')[0]!
          if (to !== folder && !MAY_IMPORT[folder]!.includes(to)) upward.push(`${relative(root, file)} -> ${relative(root, target)}`)
        }
      }
    }
    expect(upward).toEqual([])
  })
})
