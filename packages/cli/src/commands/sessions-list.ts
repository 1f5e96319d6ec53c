import { loadBase, sessionStore } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans sessions list [--json]`: this workspace's sessions, newest first. */
export async function sessionsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const sessions = sessionStore(await loadBase(options)).list();
  if (local.json) {
    const rows = sessions.map(({ id, startedAt, lastActivity, turns, firstPrompt, model, provider }) => ({
      id,
      startedAt,
      lastActivity,
      turns,
      firstPrompt,
      model,
      provider,
    }));
    process.stdout.write(`${JSON.stringify({ sessions: rows })}\n`);
    return 0;
  }
  if (sessions.length === 0) {
    process.stdout.write('No sessions in this workspace yet.\n');
    return 0;
  }
  for (const session of sessions) {
    process.stdout.write(
      `${session.id}  ${formatTime(session.lastActivity)}  ${String(session.turns).padStart(3)} turns  ${session.model ?? ''}  ${session.firstPrompt}\n`,
    );
  }
  process.stdout.write('\nResume one with `beans --resume <id>` (a unique prefix is enough), or the newest with `beans --continue`.\n');
  return 0;
}

function formatTime(value: string | number | Date): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().slice(0, 16).replace('T', ' ');
}
