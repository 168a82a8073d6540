import { defineConfig } from 'vitest/config'

// Each test file runs in its own process: chDB is one engine per process, and tests that
// open a data path must not share it with another file.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
})
