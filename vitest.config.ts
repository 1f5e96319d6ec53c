import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    // A fresh TMPDIR and HOME for the whole suite: nothing earlier runs left on this machine counts.
    globalSetup: ['test/support/global-setup.ts'],
    // Bounds that hold at load 8 on two cores (CI shares its machine): a tmux test of a few steps took 40 s there.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores: end-to-end tests spawn processes, so more workers only add contention.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
