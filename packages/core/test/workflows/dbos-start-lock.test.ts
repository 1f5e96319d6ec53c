// startDbosSerially (issue 58): processes starting DBOS on one database take turns, and a waiting one
// holds no transaction open (DBOS's CREATE INDEX CONCURRENTLY would wait for it: a deadlock).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDbosSerially } from '../../src/workflows/dbos/start-lock.js';
import { postgresUnavailable, startPostgres, type Postgres } from '../../../../test/support/postgres.ts';

const unavailable = postgresUnavailable();
let pg: Postgres;
beforeAll(async () => {
  if (!unavailable) pg = await startPostgres();
}, 60_000);
afterAll(() => pg?.stop());

describe.skipIf(unavailable)('startDbosSerially', () => {
  it('runs one start at a time; waiters keep no transaction open; the lock is released after a failure too', async () => {
    const url = await pg.createDatabase('startlock');
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const start = (n: number) => async () => {
      inside += 1;
      most = Math.max(most, inside);
      // While this one holds the lock, nobody else's session may sit in an open transaction.
      const open = await pg.sql(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'startlock' AND xact_start IS NOT NULL AND query NOT LIKE '%pg_stat_activity%'",
        'startlock',
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      order.push(n);
      inside -= 1;
      if (n === 2) throw new Error('start 2 failed');
      return open[0]!.n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => startDbosSerially(url, start(n))));
    expect(most).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3, 4]);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
    expect(results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))).toEqual([0, 0, 0]);
    // Released: a fifth start gets it at once.
    const started = Date.now();
    await startDbosSerially(url, async () => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
