import { randomUUID } from 'node:crypto';
import {
  SdkMessageMapper,
  modelLimits,
  submitSummary,
  turnExitCode,
  type AgentEvent,
  type AgentMessage,
  type AgentSession,
  type AskAnswer,
  type ChatSession,
  type ContentPart,
  type PermissionRequest,
  type SdkMessage,
  type SubmitInput,
  type SubmitOutcome,
} from '@beans/core';
import { EventLog } from './event-log.js';
import type { RemoteTerminal } from './remote-terminal.js';

/** What a served session is doing: the API's `state`. */
export type SessionState = 'running' | 'waiting' | 'idle' | 'done' | 'failed';

/** A question for whoever watches the session; the first answer wins. */
export interface PermissionRequestMessage {
  type: 'permission_request';
  request_id: string;
  tool_name: string;
  input: unknown;
  /** A one-line description of the call, as the chat shows it. */
  summary?: string;
  session_id: string;
}

/** Said once a question is answered (by any client) or withdrawn (the turn was stopped). */
export interface PermissionResolvedMessage {
  type: 'permission_resolved';
  request_id: string;
  behavior: 'allow' | 'deny' | 'cancelled';
  session_id: string;
}

/** One line of a session's event stream: an SDK message as `stream-json` prints it, or a question. */
export type ServedMessage = SdkMessage | PermissionRequestMessage | PermissionResolvedMessage;

export interface SessionSummary {
  id: string;
  cwd: string;
  state: SessionState;
  title: string;
  updatedAt: string;
  /** The exit code the last turn would give a one-shot run (0 success, 1 error, 4 limit, 130 stopped). */
  exitCode?: number;
}

interface OpenQuestion {
  request: PermissionRequest;
  resolve(answer: AskAnswer): void;
}

/** A chat view attached to the session (`beans attach`): asked every question too, next to the HTTP clients. */
type Asker = (request: PermissionRequest, signal: AbortSignal) => Promise<AskAnswer>;

export type AnswerResult = 'answered' | 'unknown' | 'already-answered';

/**
 * One session hosted by `beans serve`: a session of core fed by its one submit path, whose events
 * are kept numbered for every client, and whose permission questions any client may answer.
 */
export class HostedSession {
  readonly id: string;
  readonly cwd: string;
  readonly log = new EventLog<ServedMessage>();
  /** The conversation before this server took it over (a resumed session's), which the log does not replay. */
  earlier: readonly AgentMessage[];
  private updated = Date.now();
  private title: string;
  private exitCode: number | undefined;
  private readonly questions = new Map<string, OpenQuestion>();
  private readonly askers = new Set<Asker>();
  private readonly terminals = new Map<string, RemoteTerminal>();
  private readonly answered = new Set<string>();
  private turns = 0;
  private closed = false;
  private mapper: SdkMessageMapper;
  private unsubscribe: () => void = () => undefined;
  private readonly stopWatchingChanges: () => void;

  constructor(
    readonly agent: AgentSession,
    options: { title?: string } = {},
  ) {
    this.id = agent.session.id;
    this.cwd = agent.workspace.cwd;
    this.title = options.title ?? '';
    this.earlier = [...agent.session.messages];
    this.mapper = this.follow(agent.session);
    agent.setAsker((request, signal) => this.ask(request, signal));
    // /clear starts another conversation under the same served session.
    this.stopWatchingChanges = agent.onSessionChange((session) => {
      this.earlier = [];
      this.mapper = this.follow(session);
    });
    this.log.append(this.mapper.init(agent.initInfo()));
    // Loops, cron tasks and a goal of a served session run here, through this session's submit, so
    // each of their runs ends with a `result` on the event stream like a client's message.
    agent.schedules.connect((input) => this.submit(input));
    agent.goals.connect((input) => this.submit(input));
    agent.schedules.start();
  }

  /** Read from the session itself, so a turn started from an attached chat counts as one from the API. */
  get state(): SessionState {
    if (this.closed) return this.exitCode === 1 || this.exitCode === 3 ? 'failed' : 'done';
    if (this.questions.size > 0) return 'waiting';
    if (this.turns > 0 || this.agent.session.isRunning) return 'running';
    return this.exitCode === 1 || this.exitCode === 3 ? 'failed' : 'idle';
  }

  summary(): SessionSummary {
    return {
      id: this.id,
      cwd: this.cwd,
      state: this.state,
      title: this.title,
      updatedAt: new Date(this.updated).toISOString(),
      ...(this.exitCode !== undefined ? { exitCode: this.exitCode } : {}),
    };
  }

  /** A message from a client, with pictures beside the words: a turn of its own when idle, else it steers the running turn. */
  send(text: string, parts?: ContentPart[]): Promise<SubmitOutcome> {
    return this.submit({ text, ...(parts && parts.length > 0 ? { parts } : {}) });
  }

  /**
   * Every submission of this session (the API's messages, an attached chat's input) goes through
   * here to core's submit path, so each ends with a `result` on the event stream.
   */
  async submit(input: SubmitInput): Promise<SubmitOutcome> {
    if (this.closed) return { kind: 'refused', reason: 'The session was stopped.' };
    if (!this.title) this.title = firstLine(input.text);
    this.turns++;
    this.touch();
    const started = Date.now();
    try {
      const outcome = await this.agent.submit(input);
      if (outcome.kind === 'turn' || outcome.kind === 'command' || outcome.kind === 'refused') {
        this.log.append(this.mapper.result(submitSummary(outcome, Date.now() - started)));
      }
      if (outcome.kind === 'turn') this.exitCode = turnExitCode(outcome);
      return outcome;
    } finally {
      this.turns--;
      this.touch();
    }
  }

  /** An attached chat asks its person every question while it is open; the first answer from anywhere wins. */
  addAsker(asker: Asker): () => void {
    this.askers.add(asker);
    return () => this.askers.delete(asker);
  }

  /** The chat on this session for a terminal elsewhere (`beans attach`); it goes when its chat is left. */
  async openTerminal(size: { columns: number; rows: number }, options: { noColor?: boolean } = {}): Promise<RemoteTerminal> {
    const { RemoteTerminal } = await import('./remote-terminal.js');
    const terminal = new RemoteTerminal(this, size, options);
    this.terminals.set(terminal.id, terminal);
    void terminal.ended.then(() => this.terminals.delete(terminal.id));
    return terminal;
  }

  terminal(id: string): RemoteTerminal | undefined {
    return this.terminals.get(id);
  }

  /** Stops the running turn; open questions are withdrawn. */
  interrupt(): void {
    this.agent.session.abort();
    for (const [id, question] of this.questions) this.withdraw(id, question);
  }

  /** The first answer to a question wins; a later one is told so. */
  answer(requestId: string, answer: { behavior: 'allow' | 'deny'; message?: string; always?: boolean }): AnswerResult {
    if (!this.questions.has(requestId)) return this.answered.has(requestId) ? 'already-answered' : 'unknown';
    this.settle(
      requestId,
      answer.behavior === 'allow' ? { decision: answer.always ? 'always' : 'once' } : { decision: 'deny', reason: answer.message || 'Denied by the user.' },
    );
    return 'answered';
  }

  /** Ends the session: its turn and commands stop, SessionEnd hooks run, its file stays resumable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const terminal of this.terminals.values()) terminal.close();
    this.interrupt();
    this.touch();
    this.unsubscribe();
    this.stopWatchingChanges();
    this.log.close();
    await this.agent.end().catch(() => undefined);
    await this.agent.close();
  }

  private ask(request: PermissionRequest, signal: AbortSignal): Promise<AskAnswer> {
    return new Promise<AskAnswer>((resolve) => {
      if (signal.aborted) return resolve({ decision: 'deny', reason: 'The turn was stopped.' });
      const id = randomUUID();
      // Attached chats are asked too; once any answer is in, their prompts are withdrawn.
      const elsewhere = new AbortController();
      const question: OpenQuestion = {
        request,
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          elsewhere.abort();
          resolve(answer);
        },
      };
      const onAbort = () => this.withdraw(id, question);
      signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(id, question);
      this.log.append({ type: 'permission_request', request_id: id, tool_name: request.tool.name, input: request.input, session_id: this.id });
      this.touch();
      for (const asker of this.askers) {
        void asker(request, elsewhere.signal).then((answer) => {
          if (!elsewhere.signal.aborted) this.settle(id, answer);
        });
      }
    });
  }

  /** An attached chat's answer: the same as an HTTP client's. */
  private settle(id: string, answer: AskAnswer): void {
    const question = this.questions.get(id);
    if (!question) return;
    this.questions.delete(id);
    this.answered.add(id);
    question.resolve(answer);
    this.log.append({ type: 'permission_resolved', request_id: id, behavior: answer.decision === 'deny' ? 'deny' : 'allow', session_id: this.id });
    this.touch();
  }

  private withdraw(id: string, question: OpenQuestion): void {
    if (!this.questions.delete(id)) return;
    this.answered.add(id);
    question.resolve({ decision: 'deny', reason: 'The turn was stopped.' });
    this.log.append({ type: 'permission_resolved', request_id: id, behavior: 'cancelled', session_id: this.id });
    this.touch();
  }

  private touch(): void {
    this.updated = Date.now();
  }

  /** Maps a conversation's events into the log (a new conversation after /clear gets its own mapper). */
  private follow(session: ChatSession): SdkMessageMapper {
    this.unsubscribe();
    const mapper = new SdkMessageMapper({
      sessionId: this.id,
      includePartialMessages: true,
      replayUserMessages: true,
      modelLimits: (model) => modelLimits(this.agent.providerId, model),
      workspaceRoot: this.agent.workspace.root,
    });
    this.unsubscribe = session.subscribe((event: AgentEvent) => {
      for (const message of mapper.event(event)) this.log.append(message);
      this.updated = Date.now();
    });
    return mapper;
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
