import pg from 'pg';
import { UsageError } from '../errors.js';
import { describeDatabase } from '../workflows/dbos/database.js';
import { EVENTS_CHANNEL, prepareRunnerDatabase, SessionDatabase, type Answer, type BackgroundSession } from './database.js';

// Background sessions seen from any machine with the database: the list, one session, waiting for
// its end, following its events (LISTEN/NOTIFY wakes the reader; a poll every second covers a
// notification missed while reconnecting) and answering its permission questions.

const WAIT_POLL_MS = 250;
const FOLLOW_POLL_MS = 1000;

export class BackgroundSessions {
  private constructor(readonly db: SessionDatabase) {}

  /** Opens the database (exit 3 with one sentence when it cannot be used). */
  static async open(url: string): Promise<BackgroundSessions> {
    await prepareRunnerDatabase(url);
    return new BackgroundSessions(new SessionDatabase(url));
  }

  get where(): string {
    return describeDatabase(this.db.url);
  }

  list(): Promise<BackgroundSession[]> {
    return this.db.list();
  }

  /** A session by id or unique prefix; undefined when the database has none such. */
  async find(idOrPrefix: string): Promise<BackgroundSession | undefined> {
    const found = await this.db.find(idOrPrefix);
    if (Array.isArray(found)) throw new UsageError(`${idOrPrefix} names ${found.length} background sessions; give more of the id.`);
    return found;
  }

  /** The newest session, for `attach` without an id. */
  async newest(): Promise<BackgroundSession | undefined> {
    return (await this.db.list(1))[0];
  }

  /** Resolves with the session's exit code once it ended. */
  async wait(id: string, signal?: AbortSignal): Promise<number> {
    for (;;) {
      const session = (await this.db.find(id)) as BackgroundSession | undefined;
      if (!session) throw new UsageError(`No background session ${id} in ${this.where}.`);
      if (session.exitCode !== undefined) return session.exitCode;
      if (signal?.aborted) return 130;
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
  }

  /**
   * Calls `onMessage` with every event after `after` in order, then each new one as it is stored,
   * until `onMessage` returns true, the session has ended and every event was read, or the signal stops it.
   */
  async follow(id: string, after: number, onMessage: (message: Record<string, unknown>, seq: number) => boolean | void, signal?: AbortSignal): Promise<void> {
    const listener = new pg.Client({ connectionString: this.db.url, connectionTimeoutMillis: 5000 });
    listener.on('error', () => {});
    let wake: (() => void) | undefined;
    listener.on('notification', (note) => {
      if (note.payload === id) wake?.();
    });
    await listener.connect().then(
      () => listener.query(`LISTEN ${EVENTS_CHANNEL}`),
      () => undefined,
    );
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort);
    let seq = after;
    try {
      for (;;) {
        const ended = (await this.db.find(id)) as BackgroundSession | undefined;
        for (let batch = await this.db.eventsSince(id, seq); batch.length > 0; batch = await this.db.eventsSince(id, seq)) {
          for (const event of batch) {
            seq = event.seq;
            if (onMessage(event.message, event.seq)) return;
          }
        }
        if (signal?.aborted || ended?.exitCode !== undefined) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, FOLLOW_POLL_MS);
          function done() {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          }
          wake = done;
        });
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await listener.end().catch(() => {});
    }
  }

  /** The first answer wins; false when the question was answered already. */
  answer(id: string, requestId: string, answer: Answer, by: string): Promise<boolean> {
    return this.db.answer(id, requestId, answer, by);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
