import { UsageError } from '@beans/core';
import type { BackgroundSession, BackgroundSessions } from '@beans/core/runners';
import type { CliOptions } from '../options.js';
import { findServer } from '../server/client.js';
import { serverHost, type SessionHost } from '../server/session-host.js';

/** Background sessions in the runners' database (DBOS and pg load with this file only). */
export class RunnersHost implements SessionHost {
  readonly kind = 'runners';

  constructor(private readonly url: string) {}

  async queue(options: CliOptions, prompt: string): Promise<number> {
    const { queueSession } = await import('@beans/core/runners');
    const permissionMode = options.yolo ? 'yolo' : options.permissionMode;
    const queued = await queueSession({
      databaseUrl: this.url,
      cwd: process.cwd(),
      prompt,
      request: {
        ...(options.provider ? { provider: options.provider } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(permissionMode ? { permissionMode } : {}),
        ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
      },
    });
    for (const warning of queued.warnings) process.stderr.write(`beans: ${warning}\n`);
    process.stdout.write(`${queued.id}\n`);
    return 0;
  }

  async show(id: string, local: { json?: boolean }): Promise<number> {
    const session = await this.withSessions((sessions) => sessions.find(id));
    if (!session) return (await this.local(id)).show(id, local);
    process.stdout.write(local.json ? `${JSON.stringify(session)}\n` : describe(session));
    return 0;
  }

  async wait(id: string): Promise<number> {
    const sessions = await this.sessions();
    try {
      const session = await sessions.find(id);
      if (!session) return (await this.local(id)).wait(id);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      try {
        return await sessions.wait(session.id, stop.signal);
      } finally {
        process.off('SIGINT', onSignal);
      }
    } finally {
      await sessions.close();
    }
  }

  async attach(id: string | undefined): Promise<number> {
    const sessions = await this.sessions();
    try {
      const session = id ? await sessions.find(id) : await sessions.newest();
      if (!session) {
        if (id) return (await this.local(id)).attach(id);
        throw new UsageError(`No background session in ${sessions.where} yet. Queue one with \`beans -p "..." --background\`.`);
      }
      const { followSession } = await import('./follow-view.js');
      return await followSession(sessions, session);
    } finally {
      await sessions.close();
    }
  }

  /** An id the database does not know may be the local server's; with none running, the database's answer stands. */
  private async local(id: string): Promise<SessionHost> {
    if (!findServer(process.env))
      throw new UsageError(`No background session ${id} in the runners' database (and no Beans server runs on this machine to look on).`);
    return serverHost();
  }

  private async sessions(): Promise<BackgroundSessions> {
    const { BackgroundSessions } = await import('@beans/core/runners');
    return BackgroundSessions.open(this.url);
  }

  private async withSessions<T>(job: (sessions: BackgroundSessions) => Promise<T>): Promise<T> {
    const sessions = await this.sessions();
    try {
      return await job(sessions);
    } finally {
      await sessions.close();
    }
  }
}

/** `beans sessions show ID` for a background session. */
function describe(session: BackgroundSession): string {
  const rows: [string, string | undefined][] = [
    ['session', session.id],
    ['state', session.state],
    ['runner', session.runner],
    ['branch', session.branch],
    ['change', session.result?.change],
    ['files', session.result?.files.length ? session.result.files.join(', ') : undefined],
    [
      'pushed',
      session.result
        ? session.result.pushError
          ? `no: ${session.result.pushError}`
          : session.result.change === 'no changes'
            ? 'nothing to push'
            : 'yes'
        : undefined,
    ],
    ['error', session.result?.error],
    ['exit code', session.exitCode === undefined ? undefined : String(session.exitCode)],
    ['title', session.title],
    ['origin', session.origin],
    ['commit', session.baseCommit],
    ['folder', session.subdir || undefined],
    ['by', session.submittedBy],
    ['updated', session.updatedAt],
  ];
  return `${rows
    .filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '')
    .map(([name, value]) => `${name.padEnd(10)} ${value}`)
    .join('\n')}\n`;
}
