import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * A page that sends a newcomer to a file that was moved or renamed teaches them to distrust
 * the page: every repository path written in `code` in docs/ must exist. A templated path
 * (`api/endpoints/<name>.ts`) must at least have its folder.
 */

const root = join(import.meta.dirname, '../..')
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'))
/** What the repository holds at its top: a span is a repository path when it starts with one of these. */
const topLevel = new Set(readdirSync(root))

/** Inline code spans that look like repository paths (routes, run-time paths such as `DATA_DIR/…` and `../` paths outside the repo excluded). */
function pathsIn(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)
  return spans.filter((s) => /^[\w.-]+\/[^\s]*$/.test(s) && topLevel.has(s.split('/')[0]!))
}

describe('README.md', () => {
  it('names only paths that exist', () => {
    expect(pathsIn(readFileSync(join(root, 'README.md'), 'utf8')).filter((p) => !existsSync(join(root, p)))).toEqual([])
  })
})

describe('docs/', () => {
  it('has the architecture page', () => {
    expect(docs).toContain('architecture.md')
  })

  for (const page of docs) {
    it(`docs/${page} names only paths that exist`, () => {
      const paths = pathsIn(readFileSync(join(root, 'docs', page), 'utf8'))
      // The architecture page names files by design (a guard that the scan finds paths at all).
      if (page === 'architecture.md') expect(paths.length).toBeGreaterThan(0)
      const missing = paths.filter((p) => {
        const templated = p.search(/[<*]/)
        const existing = templated < 0 ? p : p.slice(0, p.lastIndexOf('/', templated) + 1)
        return !existsSync(join(root, existing))
      })
      expect(missing).toEqual([])
    })
  }
})
