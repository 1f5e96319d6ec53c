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
    // Two cores, four workers: end-to-end tests spawn processes, but a fifth of the suite's time is
    // waiting (a runner killed mid-session, cron minutes, loop intervals), which more workers overlap
    // (fresh clones here: 926 s with two, 830 then 579 s with three, 504 s with five at load 6, all passing).
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
  },
});
