import { randomUUID } from 'node:crypto';
import {
  SdkMessageMapper,
  exitCodeForFailure,
  modelLimits,
  submitSummary,
  type AgentEvent,
  type AgentSession,
  type AskAnswer,
  type ChatSession,
  type PermissionRequest,
  type SdkMessage,
  type SubmitOutcome,
} from '@beans/core';
import { EventLog } from './event-log.js';

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

export type AnswerResult = 'answered' | 'unknown' | 'already-answered';

/**
 * One session hosted by `beans serve`: a session of core fed by its one submit path, whose events
 * are kept numbered for every client, and whose permission questions any client may answer.
 */
export class HostedSession {
  readonly id: string;
  readonly cwd: string;
  readonly log = new EventLog<ServedMessage>();
  private stateNow: SessionState = 'idle';
  private updated = Date.now();
  private title: string;
  private exitCode: number | undefined;
  private readonly questions = new Map<string, OpenQuestion>();
  private readonly answered = new Set<string>();
  private turns = 0;
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
    this.mapper = this.follow(agent.session);
    agent.setAsker((request, signal) => this.ask(request, signal));
    // /clear starts another conversation under the same served session.
    this.stopWatchingChanges = agent.onSessionChange((session) => (this.mapper = this.follow(session)));
    this.log.append(this.mapper.init(agent.initInfo()));
  }

  get state(): SessionState {
    return this.stateNow;
  }

  summary(): SessionSummary {
    return {
      id: this.id,
      cwd: this.cwd,
      state: this.stateNow,
      title: this.title,
      updatedAt: new Date(this.updated).toISOString(),
      ...(this.exitCode !== undefined ? { exitCode: this.exitCode } : {}),
    };
  }

  /** A message from a client: a turn of its own when idle, else it steers the running turn. Resolves when that is settled. */
  async send(text: string): Promise<SubmitOutcome> {
    if (this.closed) return { kind: 'refused', reason: 'The session was stopped.' };
    if (!this.title) this.title = firstLine(text);
    this.turns++;
    this.setState('running');
    const started = Date.now();
    try {
      const outcome = await this.agent.submit({ text });
      if (outcome.kind === 'turn' || outcome.kind === 'command' || outcome.kind === 'refused') {
        this.log.append(this.mapper.result(submitSummary(outcome, Date.now() - started)));
      }
      if (outcome.kind === 'turn') this.exitCode = turnExitCode(outcome);
      return outcome;
    } finally {
      this.turns--;
      if (!this.closed) this.setState(this.turns > 0 || this.agent.session.isRunning ? 'running' : this.exitCode === 1 ? 'failed' : 'idle');
    }
  }

  /** Stops the running turn; open questions are withdrawn. */
  interrupt(): void {
    this.agent.session.abort();
    for (const [id, question] of this.questions) this.withdraw(id, question);
  }

  /** The first answer to a question wins; a later one is told so. */
  answer(requestId: string, answer: { behavior: 'allow' | 'deny'; message?: string; always?: boolean }): AnswerResult {
    const question = this.questions.get(requestId);
    if (!question) return this.answered.has(requestId) ? 'already-answered' : 'unknown';
    this.questions.delete(requestId);
    this.answered.add(requestId);
    question.resolve(
      answer.behavior === 'allow' ? { decision: answer.always ? 'always' : 'once' } : { decision: 'deny', reason: answer.message || 'Denied by the user.' },
    );
    this.log.append({ type: 'permission_resolved', request_id: requestId, behavior: answer.behavior, session_id: this.id });
    this.settleState();
    return 'answered';
  }

  private closed = false;

  /** Ends the session: its turn and commands stop, SessionEnd hooks run, its file stays resumable. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.interrupt();
    this.setState(this.exitCode === 1 ? 'failed' : 'done');
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
      const question: OpenQuestion = {
        request,
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      const onAbort = () => this.withdraw(id, question);
      signal.addEventListener('abort', onAbort, { once: true });
      this.questions.set(id, question);
      this.log.append({ type: 'permission_request', request_id: id, tool_name: request.tool.name, input: request.input, session_id: this.id });
      this.setState('waiting');
    });
  }

  private withdraw(id: string, question: OpenQuestion): void {
    if (!this.questions.delete(id)) return;
    this.answered.add(id);
    question.resolve({ decision: 'deny', reason: 'The turn was stopped.' });
    this.log.append({ type: 'permission_resolved', request_id: id, behavior: 'cancelled', session_id: this.id });
    this.settleState();
  }

  private settleState(): void {
    if (this.closed) return;
    if (this.questions.size > 0) return this.setState('waiting');
    this.setState(this.turns > 0 || this.agent.session.isRunning ? 'running' : this.exitCode === 1 ? 'failed' : 'idle');
  }

  private setState(state: SessionState): void {
    this.stateNow = state;
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

/** The exit code a one-shot run of this turn would have had. */
function turnExitCode(outcome: Extract<SubmitOutcome, { kind: 'turn' }>): number {
  const { result, refused } = outcome.turn;
  if (refused) return refused.stage === 'prompt' ? 2 : 1;
  if (result.stopReason === 'completed') return 0;
  if (result.stopReason === 'aborted') return 130;
  if (result.stopReason === 'max_turns' || result.stopReason === 'max_budget') return 4;
  return result.failure ? exitCodeForFailure(result.failure) : 1;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
