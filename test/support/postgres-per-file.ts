// Vitest's hooks around test/support/postgres.ts (kept apart: the benchmarks import that file
// outside Vitest, where importing 'vitest' throws).
import { afterAll, beforeAll } from 'vitest';
import { postgresUnavailable, startPostgres, type Postgres } from './postgres.ts';

/**
 * A test file's own cluster: started before its tests and stopped after them (when PostgreSQL is
 * here); `database()` makes a fresh database in it for each test, named `<prefix>1`, `<prefix>2`...
 */
export function postgresForFile(prefix: string): { unavailable: string | undefined; cluster(): Postgres; database(): Promise<string> } {
  const unavailable = postgresUnavailable();
  let cluster: Postgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    if (!unavailable) cluster = await startPostgres();
  }, 60_000);
  afterAll(() => cluster?.stop());
  const started = () => {
    if (!cluster) throw new Error('PostgreSQL has not started');
    return cluster;
  };
  return { unavailable, cluster: started, database: () => started().createDatabase(`${prefix}${++databases}`) };
}
