import pg from 'pg';
import { ConfigError } from '../../errors.js';
import type { RunState, WorkflowProgress } from '../types.js';

// Beans' own rows beside DBOS's system tables (schema `dbos`): one row per run holding the engine's
// checkpoint (the same RunState the file store writes), the progress reports of each run in order
// (what `wait` streams from any machine), and the progress that agents report from workers.

const SCHEMA_SQL = `
CREATE SCHEMA IF NOT EXISTS beans;
CREATE TABLE IF NOT EXISTS beans.meta (app text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
INSERT INTO beans.meta (app) VALUES ('beans') ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS beans.runs (
  id text PRIMARY KEY,
  workflow_path text NOT NULL,
  source text NOT NULL,
  generation integer NOT NULL DEFAULT 1,
  state jsonb NOT NULL,
  executor text,
  heartbeat timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS beans.progress (seq bigserial PRIMARY KEY, run_id text NOT NULL, report jsonb NOT NULL);
CREATE INDEX IF NOT EXISTS progress_run ON beans.progress (run_id, seq);
CREATE TABLE IF NOT EXISTS beans.call_progress (seq bigserial PRIMARY KEY, run_id text NOT NULL, call_id text NOT NULL, local real NOT NULL, message text);
CREATE INDEX IF NOT EXISTS call_progress_run ON beans.call_progress (run_id, seq);
ALTER TABLE beans.runs ADD COLUMN IF NOT EXISTS orchestrator text;
`;

/** `postgresql://user@host:port/db` without the password: how messages name the database. */
export function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured database';
  }
}

const FIX = 'Fix workflows.databaseUrl (or BEANS_DATABASE_URL).';
const OR_FIX = 'fix workflows.databaseUrl (or BEANS_DATABASE_URL).';

/** One clear sentence for a database Beans cannot use (exit 3). */
export function databaseProblem(error: unknown, url: string): ConfigError {
  const where = describeDatabase(url);
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  if (code === 'ECONNREFUSED') return new ConfigError(`Cannot reach PostgreSQL at ${where}: connection refused. Start the server or ${OR_FIX}`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ConfigError(`Cannot reach PostgreSQL at ${where}: unknown host. ${FIX}`);
  if (code === '28P01' || code === '28000') return new ConfigError(`PostgreSQL at ${where} refused the credentials (${message}). ${FIX}`);
  if (code === '3D000') return new ConfigError(`PostgreSQL at ${where} has no such database (${message}); create it with createdb or ${OR_FIX}`);
  if (/timeout|timed out/i.test(message)) return new ConfigError(`Cannot reach PostgreSQL at ${where}: no answer within 5 s. ${FIX}`);
  return new ConfigError(`Cannot use PostgreSQL at ${where}: ${message}. ${FIX}`);
}

/** A lost connection (server restarted, network cut) rather than a bad query: worth retrying. */
export function isConnectionLoss(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004'].includes(code) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test((error as Error).message ?? '')
  );
}

/**
 * Checks the database before anything is written: reachable, credentials accepted, and either empty
 * or already Beans' own. A database holding another program's tables (or another DBOS application's)
 * is refused, so Beans never mixes its rows into it. Then creates Beans' schema in one transaction.
 */
export async function prepareDatabase(url: string): Promise<void> {
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`workflows.databaseUrl is not a URL (expected postgresql://user:password@host:5432/database). ${FIX}`);
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw databaseProblem(error, url);
  }
  try {
    const { rows } = await client.query<{ schema: string; name: string }>(
      `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`,
    );
    const foreign = rows.filter((row) => row.schema !== 'dbos' && row.schema !== 'beans');
    const ours = rows.some((row) => row.schema === 'beans' && row.name === 'meta');
    if (foreign.length > 0 || (!ours && rows.length > 0)) {
      const example = foreign[0] ?? rows[0];
      throw new ConfigError(
        `The database ${describeDatabase(url)} already holds another program's tables (such as ${example.schema}.${example.name}); give Beans a database of its own (createdb beans_workflows) and set workflows.databaseUrl to it.`,
      );
    }
    // Idempotent (it also brings an older Beans schema up to date); processes starting together
    // take turns, as concurrent CREATE ... IF NOT EXISTS can collide.
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('beans-schema'))");
    await client.query(SCHEMA_SQL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    if (error instanceof ConfigError) throw error;
    throw databaseProblem(error, url);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface RunRow {
  id: string;
  workflowPath: string;
  source: string;
  generation: number;
  state: RunState;
  executor?: string;
  /** The DBOS workflow id running the run now: the only one whose checkpoints are taken. */
  orchestrator: string;
  heartbeatAgeMs: number;
}

/** Beans' rows: runs, their progress, and workers' call progress. Queries retry while the connection is lost. */
export class RunDatabase {
  readonly pool: pg.Pool;

  constructor(
    readonly url: string,
    private readonly log: (line: string) => void,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 5000 });
    // An idle client losing its server is reported by the next query, not by a crash.
    this.pool.on('error', () => {});
  }

  /** One query; a lost connection is retried with backoff (said on stderr) for up to ~2 minutes. */
  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<T>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.query<T>(text, values);
      } catch (error) {
        if (!isConnectionLoss(error) || attempt >= 12) throw error;
        const wait = Math.min(10_000, 250 * 2 ** (attempt - 1));
        this.log(`lost the database ${describeDatabase(this.url)} (${(error as Error).message}); retrying in ${wait} ms (attempt ${attempt})`);
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async createRun(state: RunState, workflowPath: string, source: string, executor: string, orchestrator: string): Promise<void> {
    await this.query('INSERT INTO beans.runs (id, workflow_path, source, state, executor, orchestrator) VALUES ($1, $2, $3, $4, $5, $6)', [
      state.id,
      workflowPath,
      source,
      state,
      executor,
      orchestrator,
    ]);
  }

  /** A checkpoint, taken only from the run's current orchestrator (a replaced one can no longer write). */
  async saveState(state: RunState, executor: string, orchestrator: string): Promise<void> {
    await this.query('UPDATE beans.runs SET state = $2, executor = $3, heartbeat = now() WHERE id = $1 AND orchestrator = $4', [
      state.id,
      state,
      executor,
      orchestrator,
    ]);
  }

  async heartbeat(id: string, executor: string, orchestrator: string): Promise<void> {
    await this.query('UPDATE beans.runs SET executor = $2, heartbeat = now() WHERE id = $1 AND orchestrator = $3', [id, executor, orchestrator]);
  }

  async setGeneration(id: string, generation: number, orchestrator: string): Promise<void> {
    await this.query('UPDATE beans.runs SET generation = $2, orchestrator = $3, heartbeat = now() WHERE id = $1', [id, generation, orchestrator]);
  }

  /** Running runs whose orchestrator stopped beating `staleMs` ago. */
  async staleRuns(staleMs: number): Promise<{ id: string; generation: number; orchestrator: string }[]> {
    const { rows } = await this.query<{ id: string; generation: number; orchestrator: string }>(
      "SELECT id, generation, orchestrator FROM beans.runs WHERE state->>'status' = 'running' AND heartbeat < now() - make_interval(secs => $1::float / 1000) LIMIT 20",
      [staleMs],
    );
    return rows;
  }

  /** Takes a stale run over for `next`; false when another process took it first or it came back. */
  async takeOver(id: string, previous: string, next: string, staleMs: number): Promise<boolean> {
    const { rowCount } = await this.query(
      'UPDATE beans.runs SET orchestrator = $3, heartbeat = now() WHERE id = $1 AND orchestrator = $2 AND heartbeat < now() - make_interval(secs => $4::float / 1000)',
      [id, previous, next, staleMs],
    );
    return rowCount === 1;
  }

  private static row(row: Record<string, unknown>): RunRow {
    return {
      id: row.id as string,
      workflowPath: row.workflow_path as string,
      source: row.source as string,
      generation: row.generation as number,
      state: row.state as RunState,
      executor: (row.executor as string | null) ?? undefined,
      orchestrator: (row.orchestrator as string | null) ?? `${row.id as string}@g${row.generation as number}`,
      heartbeatAgeMs: Number(row.age_ms),
    };
  }

  private static readonly COLUMNS =
    'id, workflow_path, source, generation, state, executor, orchestrator, EXTRACT(EPOCH FROM (now() - heartbeat)) * 1000 AS age_ms';

  /** A run by id or unique prefix, undefined when none matches; throws on an ambiguous prefix. */
  async findRun(idOrPrefix: string): Promise<RunRow | RunRow[] | undefined> {
    const { rows } = await this.query(`SELECT ${RunDatabase.COLUMNS} FROM beans.runs WHERE id = $1 OR id LIKE $2 ORDER BY id LIMIT 4`, [
      idOrPrefix,
      `${idOrPrefix.replace(/[\\%_]/g, '\\$&')}%`,
    ]);
    const exact = rows.find((row) => row.id === idOrPrefix);
    if (exact) return RunDatabase.row(exact);
    if (rows.length === 0) return undefined;
    return rows.length === 1 ? RunDatabase.row(rows[0]) : rows.map((row) => RunDatabase.row(row));
  }

  async listRuns(): Promise<RunRow[]> {
    const { rows } = await this.query(`SELECT ${RunDatabase.COLUMNS} FROM beans.runs ORDER BY started_at DESC LIMIT 200`);
    return rows.map((row) => RunDatabase.row(row));
  }

  async appendProgress(runId: string, report: WorkflowProgress): Promise<void> {
    await this.query('INSERT INTO beans.progress (run_id, report) VALUES ($1, $2)', [runId, report]);
  }

  /** Reports after `seq`, in order. */
  async progressSince(runId: string, seq: number): Promise<{ seq: number; report: WorkflowProgress }[]> {
    const { rows } = await this.query<{ seq: string; report: WorkflowProgress }>(
      'SELECT seq, report FROM beans.progress WHERE run_id = $1 AND seq > $2 ORDER BY seq',
      [runId, seq],
    );
    return rows.map((row) => ({ seq: Number(row.seq), report: row.report }));
  }

  async lastProgressSeq(runId: string): Promise<number> {
    const { rows } = await this.query<{ seq: string | null }>('SELECT max(seq) AS seq FROM beans.progress WHERE run_id = $1', [runId]);
    return Number(rows[0]?.seq ?? 0);
  }

  async appendCallProgress(runId: string, callId: string, local: number, message: string | undefined): Promise<void> {
    await this.query('INSERT INTO beans.call_progress (run_id, call_id, local, message) VALUES ($1, $2, $3, $4)', [runId, callId, local, message ?? null]);
  }

  async callProgressSince(runId: string, seq: number): Promise<{ seq: number; callId: string; local: number; message?: string }[]> {
    const { rows } = await this.query<{ seq: string; call_id: string; local: number; message: string | null }>(
      'SELECT seq, call_id, local, message FROM beans.call_progress WHERE run_id = $1 AND seq > $2 ORDER BY seq',
      [runId, seq],
    );
    return rows.map((row) => ({ seq: Number(row.seq), callId: row.call_id, local: row.local, ...(row.message ? { message: row.message } : {}) }));
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}
