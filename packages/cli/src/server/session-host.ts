import type { CliOptions } from '../options.js';

/**
 * Where background sessions live, behind one interface (as workflows have a local and a DBOS
 * backend): the local session server (`beans serve` on this machine), or, with a database configured
 * (BEANS_DATABASE_URL or workflows.databaseUrl), the runners' PostgreSQL, from any machine that
 * reaches it. `-p --background`, `sessions show|wait` and `attach` take whichever applies; with a
 * database, an id it does not know is looked for on the local server too.
 */
export interface SessionHost {
  readonly kind: 'server' | 'runners';
  /** `beans -p "..." --background`: hands the prompt over and prints the session's id. */
  queue(options: CliOptions, prompt: string): Promise<number>;
  show(id: string, local: { json?: boolean }): Promise<number>;
  /** Returns once the session's turn ended, with the exit code a one-shot run would have had. */
  wait(id: string): Promise<number>;
  attach(id: string | undefined): Promise<number>;
}

export async function serverHost(): Promise<SessionHost> {
  const [{ runBackground }, { sessionsShow, sessionsWait }, { runAttach }] = await Promise.all([
    import('./background.js'),
    import('./session-commands.js'),
    import('./attach.js'),
  ]);
  return { kind: 'server', queue: runBackground, show: sessionsShow, wait: sessionsWait, attach: runAttach };
}
