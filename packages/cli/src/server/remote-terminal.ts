import { EventEmitter } from 'node:events';
import type { AgentSession, AskAnswer, PermissionRequest, SubmitInput, SubmitOutcome } from '@beans/core';
import { randomUUID } from 'node:crypto';
import type { ChatAgent } from '../chat-agent.js';
import { chatAgentOf } from '../chat-agent.js';
import { EventLog } from './event-log.js';

/** What an attached view needs of the served session (hosted-session.ts), named here so the two files do not import each other. */
export interface AttachableSession {
  readonly agent: AgentSession;
  /** An attached chat asks its person every question too; returns the remover. */
  addAsker(asker: (request: PermissionRequest, signal: AbortSignal) => Promise<AskAnswer>): () => void;
  /** Submits through the served session, so its result reaches every client. */
  submit(input: SubmitInput): Promise<SubmitOutcome>;
}

/** What a remote terminal says: the bytes to print, then how its chat ended. */
export type TerminalMessage = { type: 'output'; data: string } | { type: 'exit'; code: number };

/** The attaching terminal's screen as the chat draws on it: a size, resizes, and everything written. */
class TerminalScreen extends EventEmitter {
  readonly isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
    private readonly out: (data: string) => void,
  ) {
    super();
  }
  write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    this.out(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    done?.();
    return true;
  };
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

/** The attaching terminal's keyboard: raw bytes as the terminal sent them, read the way Ink reads a TTY. */
class TerminalKeys extends EventEmitter {
  readonly isTTY = true;
  private pending: string[] = [];
  send(data: string): void {
    this.pending.push(data);
    this.emit('readable');
    this.emit('data', data);
  }
  read = (): string | null => (this.pending.length > 0 ? this.pending.splice(0).join('') : null);
  setEncoding(): this {
    return this;
  }
  setRawMode(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/**
 * The chat (the same controller, views, keys and slash commands) drawn by the server for a terminal
 * that attached over HTTP (`beans attach`): keys come in, bytes go out. Leaving closes the view only.
 */
export class RemoteTerminal {
  readonly id = randomUUID();
  readonly output = new EventLog<TerminalMessage>();
  private readonly screen: TerminalScreen;
  private readonly keys = new TerminalKeys();
  readonly ended: Promise<number>;

  private readonly closing = new AbortController();

  constructor(session: AttachableSession, size: { columns: number; rows: number }, options: { noColor?: boolean } = {}) {
    this.screen = new TerminalScreen(size.columns, size.rows, (data) => this.output.append({ type: 'output', data }));
    const { host, detach } = attachedHost(session);
    this.ended = import('../ui/run-chat.js')
      .then(({ runChat }) =>
        runChat(host, {
          noColor: options.noColor === true,
          stdin: this.keys as unknown as NodeJS.ReadStream,
          stdout: this.screen as unknown as NodeJS.WriteStream,
          stderr: this.screen as unknown as NodeJS.WriteStream,
          attached: true,
          close: this.closing.signal,
        }),
      )
      .then(
        (code) => code,
        () => 1,
      )
      .then((code) => {
        detach();
        this.output.append({ type: 'exit', code });
        this.output.close();
        return code;
      });
  }

  input(data: string): void {
    this.keys.send(data);
  }

  resize(columns: number, rows: number): void {
    this.screen.resize(columns, rows);
  }

  /** The view closes as if its person left (the session goes on). */
  close(): void {
    this.closing.abort();
  }
}

/** The served session as the chat sees it: its questions join the session's, and nothing reaches this machine's own desktop. */
function attachedHost(session: AttachableSession): { host: ChatAgent; detach: () => void } {
  let removeAsker: () => void = () => undefined;
  // The session's getters (session, permission mode...) stay live through the prototype.
  const host = Object.assign(
    Object.create(
      chatAgentOf(session.agent, {
        // The clipboard and the editor are the attaching machine's, which this process cannot reach.
        pasteImage: undefined,
        editFile: () => Promise.resolve('Opening files in an editor is not available in an attached session.'),
      }),
    ) as ChatAgent,
    {
      setAsker(asker: Parameters<ChatAgent['setAsker']>[0]) {
        removeAsker();
        if (asker) removeAsker = session.addAsker(asker);
      },
      // Its input goes through the served session, so the other clients see the turn's result too.
      submit: (input: Parameters<ChatAgent['submit']>[0]) => session.submit(input),
    },
  );
  return { host, detach: () => removeAsker() };
}
