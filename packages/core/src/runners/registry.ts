import { hostname } from 'node:os';
import { ConfigError } from '../errors.js';
import type { SessionDatabase } from './database.js';

// The runners alive on a database: each beats every BEAT_MS. DBOS on its own recovers a process's
// workflows only when that process starts again under the same executor id; a runner whose beat
// stopped for `recoveryAfterMs` is declared dead by the first live runner to notice (one conditional
// update, so one winner), which puts its sessions back on the queue for whoever takes them.

export const BEAT_MS = 1000;

export type RunnerState = 'alive' | 'draining' | 'dead' | 'stopped';

export class RunnerRegistry {
  constructor(
    private readonly db: SessionDatabase,
    readonly id: string,
  ) {}

  /** Registers this runner; refuses when a runner of the same name beats elsewhere (two would share one DBOS executor). */
  async register(staleMs: number): Promise<void> {
    const { rows } = await this.db.pool.query<{ host: string; pid: number; state: string; age: number }>(
      'SELECT host, pid, state, EXTRACT(EPOCH FROM (now() - heartbeat)) * 1000 AS age FROM beans.runners WHERE id = $1',
      [this.id],
    );
    const other = rows[0];
    // The same name on this machine whose process is gone (killed, then started again at once): this one takes its place and recovers its work.
    const gone = other?.host === hostname() && (other.pid === process.pid || !alive(other.pid));
    if (other && (other.state === 'alive' || other.state === 'draining') && Number(other.age) < staleMs && !gone)
      throw new ConfigError(
        `A runner named ${this.id} is already running (${other.host}, pid ${other.pid}); give this one another --id, or stop that one first.`,
      );
    await this.db.pool.query(
      `INSERT INTO beans.runners (id, host, pid, state) VALUES ($1, $2, $3, 'alive')
       ON CONFLICT (id) DO UPDATE SET host = $2, pid = $3, state = 'alive', heartbeat = now(), started_at = now(), recovered_by = NULL`,
      [this.id, hostname(), process.pid],
    );
  }

  /** One beat; false when another runner declared this one dead meanwhile (its sessions went elsewhere). */
  async beat(): Promise<boolean> {
    const { rowCount } = await this.db.pool.query("UPDATE beans.runners SET heartbeat = now() WHERE id = $1 AND state IN ('alive', 'draining')", [this.id]);
    return rowCount === 1;
  }

  async setState(state: RunnerState): Promise<void> {
    await this.db.pool.query('UPDATE beans.runners SET state = $2, heartbeat = now() WHERE id = $1', [this.id, state]);
  }

  /** Declares dead the runners silent for `staleMs` (this one wins each it returns). */
  async claimDead(staleMs: number): Promise<string[]> {
    const { rows } = await this.db.pool.query<{ id: string }>(
      `UPDATE beans.runners SET state = 'dead', recovered_by = $1
       WHERE id <> $1 AND state IN ('alive', 'draining') AND heartbeat < now() - make_interval(secs => $2::float / 1000)
       RETURNING id`,
      [this.id, staleMs],
    );
    return rows.map((row) => row.id);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
