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
    // Two cores, three workers: end-to-end tests spawn processes, but a fifth of the suite's time is
    // waiting (a runner killed mid-session, cron minutes, loop intervals), which a third worker
    // overlaps (fresh clone here: 926 s with two, 830 s with three, all passing).
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
  },
});
