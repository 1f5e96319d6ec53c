import pg from 'pg';
import { ConfigError } from '../../errors.js';
import { databaseProblem, describeDatabase } from './database.js';

/** How long a process waits for another's DBOS start-up before it gives up, and how often it looks. */
const START_LOCK_TIMEOUT_MS = 120_000;
const POLL_MS = 100;
const LOCK = "hashtext('beans'), hashtext('dbos-start')";

/**
 * Runs `start` (DBOS.launch, DBOSClient.create, queue registration: everything that creates or
 * migrates DBOS's system tables in `dbos`) while holding a session advisory lock on the database, so
 * processes starting at the same moment take turns. On a fresh database DBOS's migrations are not safe
 * to run concurrently: of three workers started in the same second one died with "tuple concurrently
 * updated", "duplicate key value violates unique constraint dbos_migrations_pkey" or "cannot drop
 * function dbos.streams_function()". The second process then finds the schema migrated and its own
 * migration is a no-op. Any process that launches DBOS on a Beans database (workflow workers and runs,
 * the background-session runners) should start through this. The lock is released when `start`
 * settles, and by PostgreSQL if this process dies holding it.
 */
export async function startDbosSerially<T>(databaseUrl: string, start: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw databaseProblem(error, databaseUrl);
  }
  try {
    await takeLock(client, databaseUrl);
    return await start();
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${LOCK})`).catch(() => {});
    await client.end().catch(() => {});
  }
}

/**
 * Tries for the lock every POLL_MS rather than waiting in pg_advisory_lock: a statement waiting for
 * the lock is an open transaction, and DBOS's migrations run CREATE INDEX CONCURRENTLY, which waits
 * for every open transaction to end; the holder would then wait for the waiters and they for it
 * (seen: three workers stuck for good). Each try is a statement of its own that ends at once.
 */
async function takeLock(client: pg.Client, databaseUrl: string): Promise<void> {
  const deadline = Date.now() + START_LOCK_TIMEOUT_MS;
  for (;;) {
    let taken: boolean;
    try {
      taken = (await client.query<{ taken: boolean }>(`SELECT pg_try_advisory_lock(${LOCK}) AS taken`)).rows[0]?.taken === true;
    } catch (error) {
      throw databaseProblem(error, databaseUrl);
    }
    if (taken) return;
    if (Date.now() > deadline)
      throw new ConfigError(
        `Another process has been starting DBOS on ${describeDatabase(databaseUrl)} for ${START_LOCK_TIMEOUT_MS / 1000} s; stop it (or wait for it) and try again.`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
