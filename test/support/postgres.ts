// A real PostgreSQL server for the DBOS workflow tests: Debian's `postgresql` package (binaries on
// PATH or in /usr/lib/postgresql/<version>/bin), a fresh cluster in a temporary folder, listening on
// 127.0.0.1 only. The server refuses to run as root, so as root the cluster belongs to `postgres`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface Postgres {
  /** `postgresql://beans@127.0.0.1:PORT/beans`: a database of its own, trust authentication. */
  url: string;
  port: number;
  /** A new empty database on the same server, e.g. for a test that must start from nothing. */
  createDatabase(name: string): Promise<string>;
  /** Runs one SQL statement as the superuser; returns its rows. */
  sql(statement: string, database?: string): Promise<Record<string, unknown>[]>;
  /** Takes the server down (connections cut) for `outageMs`, then starts it again on the same port. */
  bounce(outageMs: number): Promise<void>;
  stop(): void;
}

/** The folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
function postgresBin(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).stdout.trim();
  // Debian links pg_ctl into /usr/local/bin or /usr/bin; initdb sits beside the real one.
  if (onPath) return path.dirname(realpathSync(onPath));
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((name) => existsSync(path.join(base, name, 'bin/pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(base, versions[0]!, 'bin') : undefined;
}

/** Why the DBOS tests cannot run here, or undefined when they can. */
export function postgresUnavailable(): string | undefined {
  if (!postgresBin()) return 'PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root without a postgres user to own the cluster';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a fresh cluster (~1-2 s); call stop() in teardown. */
export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin) throw new Error(postgresUnavailable());
  const root = process.getuid?.() === 0;
  // The server's folder must be reachable by `postgres`: a folder of its own under /tmp, not the
  // test's private TMPDIR.
  const base = mkdtempSync(path.join(root ? '/tmp' : tmpdir(), 'beans-pg-'));
  chmodSync(base, 0o755);
  const data = path.join(base, 'data');
  if (root) execFileSync('chown', ['postgres:postgres', base]);
  const as = (command: string, args: string[]) =>
    root
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args], { stdio: 'pipe', cwd: base })
      : execFileSync(path.join(bin, command), args, { stdio: 'pipe', cwd: base });
  as('initdb', ['-D', data, '-A', 'trust', '-U', 'beans', '--no-sync']);
  const port = await freePort();
  // fsync off: the tests kill processes, not the machine.
  const start = () =>
    as('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      '-l',
      path.join(base, 'log'),
      '-w',
      'start',
    ]);
  start();
  const sql = async (statement: string, database = 'beans') => {
    const client = new pg.Client({ connectionString: `postgresql://beans@127.0.0.1:${port}/${database}` });
    await client.connect();
    try {
      return (await client.query(statement)).rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  };
  const createDatabase = async (name: string) => {
    await sql(`CREATE DATABASE ${name}`, 'postgres');
    return `postgresql://beans@127.0.0.1:${port}/${name}`;
  };
  await createDatabase('beans');
  let stopped = false;
  return {
    url: `postgresql://beans@127.0.0.1:${port}/beans`,
    port,
    createDatabase,
    sql,
    async bounce(outageMs) {
      as('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
      await new Promise((resolve) => setTimeout(resolve, outageMs));
      start();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        as('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}
