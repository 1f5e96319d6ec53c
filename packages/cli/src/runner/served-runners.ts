import type { Context } from 'hono';
import type { BackgroundSession, BackgroundSessions } from '@beans/core/runners';
import type { RunnerSessionsView } from '../server/app.js';
import type { SessionSummary } from '../server/hosted-session.js';
import { eventFrame, openEventStream } from '../server/sse.js';

// `beans serve` with a database configured: the runners' background sessions beside the server's
// own, in the same API v1 the web view speaks (their list, their events as the runner stored them,
// their permission questions answered into the database, where the runner polls for the first
// answer). They run on a runner, not here: messages, interrupts and terminals are refused.

function summaryOf(session: BackgroundSession): SessionSummary & { runner: string; branch: string } {
  const state =
    session.state === 'waiting'
      ? 'waiting'
      : session.state === 'done'
        ? 'done'
        : session.state === 'queued' || session.state === 'running'
          ? 'running'
          : 'failed';
  return {
    id: session.id,
    cwd: session.subdir ? `${session.origin} (${session.subdir})` : session.origin,
    state,
    title: session.title,
    updatedAt: session.updatedAt,
    ...(session.exitCode !== undefined ? { exitCode: session.exitCode } : {}),
    runner: session.runner ?? '',
    branch: session.branch,
  };
}

/** The view over one database, kept open for the server's life. */
export async function openRunnerSessions(url: string, by: string): Promise<RunnerSessionsView & { close(): Promise<void> }> {
  const { BackgroundSessions } = await import('@beans/core/runners');
  const sessions: BackgroundSessions = await BackgroundSessions.open(url);
  const byId = async (id: string) => {
    const found = await sessions.db.find(id);
    return found && !Array.isArray(found) && found.id === id ? found : undefined;
  };
  return {
    async list() {
      return (await sessions.list()).map(summaryOf);
    },
    async get(id) {
      const session = await byId(id);
      return session && summaryOf(session);
    },
    events(c: Context, id: string, after: number) {
      const stop = new AbortController();
      const stream = openEventStream(c, () => stop.abort());
      // The database's event numbers are the stream's: increasing per session, so Last-Event-ID resumes.
      void sessions
        .follow(
          id,
          after,
          (message, seq) => {
            stream.write(eventFrame(seq, message));
            return stream.left;
          },
          stop.signal,
        )
        .catch((error: unknown) => process.stderr.write(`beans: following session ${id}: ${error instanceof Error ? error.message : String(error)}\n`))
        .finally(() => stream.end());
      return stream.response;
    },
    async answer(id, requestId, answer) {
      if (!(await byId(id))) return 'unknown';
      const first = await sessions.answer(id, requestId, answer, by);
      if (first) return 'answered';
      const known = await sessions.db.answerOf(id, requestId);
      return known ? 'already-answered' : 'unknown';
    },
    close: () => sessions.close(),
  };
}
