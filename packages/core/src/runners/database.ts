import pg from 'pg';
import { prepareDatabase } from '../workflows/dbos/database.js';

// Beans' rows for background sessions beside DBOS's tables: one row per session (what was asked,
// where it works, who runs it, how it ended), its events in order (the stream-json messages `attach`
// follows from any machine), its permission questions with their answers, the routines' runs (the
// session each tick started) and the runners alive.
// No provider key is ever written here: a session names at most a provider, a model and a mode.

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS beans.background_sessions (
  id text PRIMARY KEY,
  title text NOT NULL,
  prompt text NOT NULL,
  origin text NOT NULL,
  base_commit text NOT NULL,
  subdir text NOT NULL DEFAULT '',
  request jsonb NOT NULL,
  submitted_by text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT 'queued',
  runner text,
  claim text,
  branch text NOT NULL,
  exit_code integer,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS beans.session_events (seq bigserial PRIMARY KEY, session_id text NOT NULL, message jsonb NOT NULL, replay_key text);
CREATE INDEX IF NOT EXISTS session_events_by_session ON beans.session_events (session_id, seq);
CREATE TABLE IF NOT EXISTS beans.session_questions (
  session_id text NOT NULL,
  request_id text NOT NULL,
  tool_name text NOT NULL,
  input jsonb,
  asked_at timestamptz NOT NULL DEFAULT now(),
  answer jsonb,
  answered_by text,
  PRIMARY KEY (session_id, request_id)
);
CREATE TABLE IF NOT EXISTS beans.routine_runs (
  routine_id text NOT NULL,
  tick timestamptz NOT NULL,
  session_id text NOT NULL,
  fired_by text NOT NULL,
  PRIMARY KEY (routine_id, tick)
);
CREATE TABLE IF NOT EXISTS beans.runners (
  id text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  state text NOT NULL,
  heartbeat timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz NOT NULL DEFAULT now(),
  recovered_by text
);
`;

/** What `sessions list|show` report of a background session. */
export type BackgroundState = 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped';

/** What a queued session may ask of a runner; nothing else of the submitter reaches it. */
export interface SessionRequest {
  provider?: string;
  model?: string;
  permissionMode?: string;
  maxTurns?: number;
}

export interface SessionResult {
  /** The final answer. */
  text: string;
  /** The branch holding the change, and its last commit (pushed unless `pushError`). */
  branch: string;
  commit?: string;
  /** `git diff --stat` of the change from the submitted commit, or "no changes". */
  change: string;
  files: string[];
  pushError?: string;
  error?: string;
}

export interface BackgroundSession {
  id: string;
  title: string;
  prompt: string;
  origin: string;
  baseCommit: string;
  subdir: string;
  request: SessionRequest;
  submittedBy: string;
  state: BackgroundState;
  runner?: string;
  branch: string;
  exitCode?: number;
  result?: SessionResult;
  createdAt: string;
  updatedAt: string;
}

export const EVENTS_CHANNEL = 'beans_session_events';

/** Creates Beans' schema (workflows' checks first: a database of its own) and the background-session tables. */
export async function prepareRunnerDatabase(url: string): Promise<void> {
  await prepareDatabase(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try {
    // Processes starting together take turns, as in prepareDatabase.
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('beans-schema'))");
    await client.query(SCHEMA_SQL);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

const SESSION_COLUMNS =
  'id, title, prompt, origin, base_commit, subdir, request, submitted_by, state, runner, branch, exit_code, result, created_at, updated_at';

function sessionOf(row: Record<string, unknown>): BackgroundSession {
  return {
    id: row.id as string,
    title: row.title as string,
    prompt: row.prompt as string,
    origin: row.origin as string,
    baseCommit: row.base_commit as string,
    subdir: row.subdir as string,
    request: row.request as SessionRequest,
    submittedBy: row.submitted_by as string,
    state: row.state as BackgroundState,
    ...(row.runner ? { runner: row.runner as string } : {}),
    branch: row.branch as string,
    ...(row.exit_code !== null && row.exit_code !== undefined ? { exitCode: row.exit_code as number } : {}),
    ...(row.result ? { result: row.result as SessionResult } : {}),
    createdAt: (row.created_at as Date).toISOString(),
    updatedAt: (row.updated_at as Date).toISOString(),
  };
}

/** The background-session rows, for submitters, runners and watchers alike. */
export class SessionDatabase {
  readonly pool: pg.Pool;

  constructor(readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 6, connectionTimeoutMillis: 5000 });
    this.pool.on('error', () => {});
  }

  async insert(session: Omit<BackgroundSession, 'state' | 'createdAt' | 'updatedAt' | 'exitCode' | 'result' | 'runner'>): Promise<void> {
    await this.pool.query(
      'INSERT INTO beans.background_sessions (id, title, prompt, origin, base_commit, subdir, request, submitted_by, branch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [session.id, session.title, session.prompt, session.origin, session.baseCommit, session.subdir, session.request, session.submittedBy, session.branch],
    );
  }

  /** A session by id or unique prefix; undefined when none matches; several rows for an ambiguous prefix. */
  async find(idOrPrefix: string): Promise<BackgroundSession | BackgroundSession[] | undefined> {
    const { rows } = await this.pool.query<Record<string, unknown>>(
      `SELECT ${SESSION_COLUMNS} FROM beans.background_sessions WHERE id = $1 OR id LIKE $2 ORDER BY id LIMIT 4`,
      [idOrPrefix, `${idOrPrefix.replace(/[\\%_]/g, '\\$&')}%`],
    );
    const exact = rows.find((row) => row.id === idOrPrefix);
    if (exact) return sessionOf(exact);
    if (rows.length === 0) return undefined;
    return rows.length === 1 ? sessionOf(rows[0]) : rows.map(sessionOf);
  }

  async list(limit = 200): Promise<BackgroundSession[]> {
    const { rows } = await this.pool.query<Record<string, unknown>>(
      `SELECT ${SESSION_COLUMNS} FROM beans.background_sessions ORDER BY created_at DESC LIMIT $1`,
      [limit],
    );
    return rows.map(sessionOf);
  }

  /**
   * An execution takes the session: a new claim token, which every later write of that execution
   * must still hold. A runner declared dead that wakes up can then write nothing more.
   */
  async claim(id: string, runner: string, claim: string): Promise<BackgroundSession | undefined> {
    const { rows } = await this.pool.query<Record<string, unknown>>(
      `UPDATE beans.background_sessions SET claim = $3, runner = $2, state = CASE WHEN exit_code IS NULL THEN 'running' ELSE state END, updated_at = now()
       WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
      [id, runner, claim],
    );
    return rows[0] ? sessionOf(rows[0]) : undefined;
  }

  /** False when another execution holds the session now. */
  async setState(id: string, claim: string, state: BackgroundState): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE beans.background_sessions SET state = $3, updated_at = now() WHERE id = $1 AND claim = $2 AND exit_code IS NULL',
      [id, claim, state],
    );
    return rowCount === 1;
  }

  async holds(id: string, claim: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM beans.background_sessions WHERE id = $1 AND claim = $2', [id, claim]);
    return rowCount === 1;
  }

  async finish(id: string, claim: string, state: BackgroundState, exitCode: number, result: SessionResult): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE beans.background_sessions SET state = $3, exit_code = $4, result = $5, updated_at = now() WHERE id = $1 AND claim = $2',
      [id, claim, state, exitCode, result],
    );
    return rowCount === 1;
  }

  /** A runner hands a session back (drain, or it was told it is dead): queued again for whoever takes it. */
  async release(id: string, claim: string): Promise<void> {
    await this.pool.query(
      "UPDATE beans.background_sessions SET claim = NULL, runner = NULL, state = 'queued', updated_at = now() WHERE id = $1 AND claim = $2 AND exit_code IS NULL",
      [id, claim],
    );
  }

  /** Appends events in order, only while `claim` holds the session; tells watchers. */
  async appendEvents(id: string, claim: string, events: { message: unknown; key?: string }[]): Promise<void> {
    if (events.length === 0) return;
    await this.pool.query(
      `WITH added AS (
         INSERT INTO beans.session_events (session_id, message, replay_key)
         SELECT $1, e.value->'message', e.value->>'key' FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS e(value, n)
         WHERE EXISTS (SELECT 1 FROM beans.background_sessions WHERE id = $1 AND claim = $2)
         ORDER BY e.n
         RETURNING 1)
       SELECT pg_notify('${EVENTS_CHANNEL}', $1) FROM (SELECT count(*) AS n FROM added) AS c WHERE c.n > 0`,
      [id, claim, JSON.stringify(events)],
    );
  }

  async eventsSince(id: string, seq: number, limit = 500): Promise<{ seq: number; message: Record<string, unknown> }[]> {
    const { rows } = await this.pool.query<{ seq: string; message: Record<string, unknown> }>(
      'SELECT seq, message FROM beans.session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [id, seq, limit],
    );
    return rows.map((row) => ({ seq: Number(row.seq), message: row.message }));
  }

  /** The replay keys of the messages already logged (see session-log.ts), so a replay adds none twice. */
  async loggedKeys(id: string): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ key: string }>(
      'SELECT replay_key AS key FROM beans.session_events WHERE session_id = $1 AND replay_key IS NOT NULL',
      [id],
    );
    return new Set(rows.map((row) => row.key));
  }

  async ask(id: string, requestId: string, toolName: string, input: unknown): Promise<void> {
    await this.pool.query(
      'INSERT INTO beans.session_questions (session_id, request_id, tool_name, input) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id, request_id) DO NOTHING',
      [id, requestId, toolName, JSON.stringify(input ?? null)],
    );
  }

  async answerOf(id: string, requestId: string): Promise<Answer | undefined> {
    const { rows } = await this.pool.query<{ answer: Answer | null }>('SELECT answer FROM beans.session_questions WHERE session_id = $1 AND request_id = $2', [
      id,
      requestId,
    ]);
    return rows[0]?.answer ?? undefined;
  }

  /** The first answer wins: false when the question was answered already (or is unknown). */
  async answer(id: string, requestId: string, answer: Answer, by: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE beans.session_questions SET answer = $3, answered_by = $4 WHERE session_id = $1 AND request_id = $2 AND answer IS NULL',
      [id, requestId, answer, by],
    );
    return rowCount === 1;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }
}

/** An answer to a permission question, as `attach` (or any client of the database) gives it. */
export interface Answer {
  behavior: 'allow' | 'deny' | 'cancelled';
  message?: string;
  always?: boolean;
}
