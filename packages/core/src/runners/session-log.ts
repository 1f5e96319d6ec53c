import { createHash } from 'node:crypto';
import type { AskUser, PermissionRequest } from '../permissions/types.js';
import type { SdkMessage } from '../runtime/sdk-types.js';
import type { AskAnswer } from '../permissions/types.js';
import type { Answer, BackgroundState, SessionDatabase } from './database.js';

// A background session's side of the database while a runner runs it: its stream-json messages
// appended in order (in batches, at least every FLUSH_MS and before every durable step is recorded),
// and its permission questions, answered by whoever watches it (`beans attach` on any machine).

const FLUSH_MS = 40;
const ANSWER_POLL_MS = 150;

/** A stream-json message (or a question), as the log stores it. */
export type LogMessage = { readonly type: string; readonly [field: string]: unknown };
type Message = LogMessage | SdkMessage;

/**
 * What identifies a message on a replay (the same init, prompt, answer or tool result comes again
 * when another runner takes the session over); undefined for messages that are new each time.
 */
function replayKey(logged: Message): string | undefined {
  const message = logged as Record<string, unknown>;
  if (message.type === 'system' && message.subtype === 'init') return 'system:init';
  if (message.type === 'assistant') return `assistant:${String((message.message as { id?: string } | undefined)?.id)}`;
  if (message.type !== 'user') return undefined;
  const content = (message.message as { content?: unknown } | undefined)?.content;
  if (Array.isArray(content) && content.some((block) => (block as { type?: string }).type === 'tool_result'))
    return `tool_result:${createHash('sha1').update(JSON.stringify(content)).digest('hex')}`;
  return `user:${String(message.uuid)}`;
}

export class SessionLog {
  private pending: { message: Message; key?: string }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly db: SessionDatabase,
    readonly sessionId: string,
    private readonly claim: string,
    /** Messages already in the log (an earlier execution of this session wrote them). */
    private readonly logged: Set<string>,
    private readonly warn: (line: string) => void,
  ) {}

  /** Messages of a replayed step that the log has already are skipped; so are partial messages of a replay. */
  add(messages: readonly Message[], replaying: boolean): void {
    for (const message of messages) {
      if (replaying && message.type === 'stream_event') continue;
      const key = replayKey(message);
      if (key && this.logged.has(key)) continue;
      if (key) this.logged.add(key);
      this.pending.push({ message, ...(key ? { key } : {}) });
    }
    if (this.pending.length > 0) this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is pending (in order, one batch at a time). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending.splice(0);
    if (batch.length > 0) {
      this.writing = this.writing.then(() =>
        this.db.appendEvents(this.sessionId, this.claim, batch).catch((error: unknown) => {
          // Events are for watchers; losing some must not stop the session.
          if (!this.failure) this.warn(`session ${this.sessionId}: events not stored (${(error as Error).message})`);
          this.failure = error;
        }),
      );
    }
    return this.writing;
  }
}

/**
 * Permission questions through the database: the question is stored and announced as a
 * `permission_request` event; the first answer stored for it (from any machine) decides. Its id is
 * the answer's message id and the call's, the same when a replacement runner asks it again, so an
 * answer given meanwhile still counts.
 */
export function databaseAsker(options: {
  db: SessionDatabase;
  sessionId: string;
  claim: string;
  log: SessionLog;
  /** The id of the model answer whose calls run now. */
  answerId: () => string;
  setState: (state: BackgroundState) => void;
}): AskUser {
  const { db, sessionId, log } = options;
  let open = 0;
  return async (request: PermissionRequest, signal: AbortSignal): Promise<AskAnswer> => {
    const requestId = `${options.answerId()}:${request.call.id}`;
    await db.ask(sessionId, requestId, request.tool.name, request.input);
    log.add([{ type: 'permission_request', request_id: requestId, tool_name: request.tool.name, input: request.input, session_id: sessionId }], false);
    await log.flush();
    if (open++ === 0) options.setState('waiting');
    try {
      const answer = await waitForAnswer(db, sessionId, requestId, signal);
      log.add([{ type: 'permission_resolved', request_id: requestId, behavior: answer.behavior, session_id: sessionId }], false);
      if (answer.behavior === 'allow') return { decision: answer.always ? 'always' : 'once' };
      return { decision: 'deny', reason: answer.behavior === 'cancelled' ? 'The turn was stopped.' : answer.message || 'Denied by the user.' };
    } finally {
      if (--open === 0) options.setState('running');
    }
  };
}

async function waitForAnswer(db: SessionDatabase, sessionId: string, requestId: string, signal: AbortSignal): Promise<Answer> {
  for (;;) {
    if (signal.aborted) {
      // Withdrawn: watchers see it answered, so no one is left asking.
      await db.answer(sessionId, requestId, { behavior: 'cancelled' }, 'runner').catch(() => false);
      return { behavior: 'cancelled' };
    }
    const answer = await db.answerOf(sessionId, requestId).catch(() => undefined);
    if (answer) return answer;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ANSWER_POLL_MS);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
