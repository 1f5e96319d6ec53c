import { loadBase, sessionStore } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans sessions list [--json]`: this workspace's sessions, newest first; those the session server runs say their state. */
export async function sessionsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const sessions = sessionStore(base).list();
  const served = await servedStates();
  const background = await backgroundSessions(base.config.values.workflows.databaseUrl);
  if (local.json) {
    const rows = sessions.map(({ id, startedAt, lastActivity, turns, firstPrompt, model, provider }) => ({
      id,
      startedAt,
      lastActivity,
      turns,
      firstPrompt,
      model,
      provider,
      ...(served.has(id) ? { state: served.get(id) } : {}),
    }));
    process.stdout.write(`${JSON.stringify({ sessions: rows, ...(background ? { background } : {}) })}\n`);
    return 0;
  }
  if (background) {
    const { describeBackground } = await import('../runner/background-list.js');
    process.stdout.write(describeBackground(background));
  }
  if (sessions.length === 0) {
    process.stdout.write('No sessions in this workspace yet.\n');
    return 0;
  }
  for (const session of sessions) {
    process.stdout.write(
      `${session.id}  ${formatTime(session.lastActivity)}  ${String(session.turns).padStart(3)} turns  ${(served.get(session.id) ?? '').padEnd(7)}  ${session.model ?? ''}  ${session.firstPrompt}\n`,
    );
  }
  process.stdout.write('\nResume one with `beans --resume <id>` (a unique prefix is enough), or the newest with `beans --continue`.\n');
  return 0;
}

/** With a database configured: the background sessions the runners take (every machine's). */
async function backgroundSessions(url: string | undefined) {
  if (!url) return undefined;
  const { BackgroundSessions } = await import('@beans/core/runners');
  const sessions = await BackgroundSessions.open(url);
  try {
    return await sessions.list();
  } finally {
    await sessions.close();
  }
}

/** The states of the sessions the local session server runs (none when it does not run, or does not answer). */
async function servedStates(): Promise<Map<string, string>> {
  const { findServer, ServerClient } = await import('../server/client.js');
  const server = findServer(process.env);
  if (!server) return new Map();
  const sessions = await new ServerClient(server).sessions().catch(() => []);
  return new Map(sessions.map((session) => [session.id, session.state]));
}

function formatTime(value: string | number | Date): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().slice(0, 16).replace('T', ' ');
}
