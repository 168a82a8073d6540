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

/** Inline code spans that look like repository paths (routes and `../` paths outside the repo excluded). */
function pathsIn(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)
  return spans.filter((s) => /^[\w.-]+\/[^\s]*$/.test(s) && !s.startsWith('../'))
}

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
        const templated = p.indexOf('<')
        const existing = templated < 0 ? p : p.slice(0, p.lastIndexOf('/', templated) + 1)
        return !existsSync(join(root, existing))
      })
      expect(missing).toEqual([])
    })
  }
})
