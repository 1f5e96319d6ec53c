import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../agent/types.js';
import { ConfigError } from '../errors.js';
import type { DurableSteps } from '../agent/durable-steps.js';
import { modelLimits } from '../llm/providers.js';
import type { AgentSession } from '../runtime/agent-session-types.js';
import { submitSummary, turnExitCode } from '../runtime/query.js';
import { SdkMessageMapper } from '../runtime/sdk-messages.js';
import type { SubmitOutcome } from '../runtime/submit.js';
import type { BackgroundSession, BackgroundState, SessionDatabase, SessionResult } from './database.js';
import { admit, type Admitted, type RunnerPolicy } from './policy.js';
import { databaseAsker, SessionLog, type LogMessage } from './session-log.js';
import { sessionSteps } from './steps.js';
import type { Worktree, Worktrees } from './worktree.js';

// The body of a background session's DBOS workflow: take the session (a new claim), check its
// choices against the runner's policy, make its worktree, build a core session with durable steps
// and feed it the prompt through core's one submit path. On a replay (another runner took it over)
// the same code runs: the steps come back from the database, the worktree from the branch and the
// recorded patches, and the log skips what it holds already.

/** What a runner's front end builds a session from: the folder, the admitted choices, and the steps. */
export interface AgentSpec {
  sessionId: string;
  cwd: string;
  admitted: Admitted;
  durableSteps: DurableSteps;
  /** The worktree's own settings, hooks and servers apply only when the runner's settings say so. */
  trustWorkspace: boolean;
}

export type OpenAgent = (spec: AgentSpec) => Promise<AgentSession>;

export interface SessionRunContext {
  db: SessionDatabase;
  worktrees: Worktrees;
  runner: string;
  policy: RunnerPolicy;
  trustWorktrees: boolean;
  openAgent: OpenAgent;
  log: (line: string) => void;
  /** The sessions this runner runs now: the runner hands them over (drain) or drops them (declared dead). */
  running: Map<string, RunningSession>;
}

export interface RunningSession {
  claim: string;
  /** Stops the local run; its writes stop once the claim is gone. */
  stop(): void;
}

export interface SessionRunResult {
  exitCode: number;
  /** Another execution holds the session now: this one's end is not its end. */
  handedOver?: boolean;
}

/** The prompt's message id: the same on every execution, so a replay does not log it twice. */
function promptUuid(sessionId: string): string {
  const hex = createHash('sha256').update(`beans-prompt:${sessionId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function runBackgroundSession(ctx: SessionRunContext, sessionId: string): Promise<SessionRunResult> {
  const claim = randomUUID();
  const session = await ctx.db.claim(sessionId, ctx.runner, claim);
  if (!session) return { exitCode: 1 };
  if (session.exitCode !== undefined) return { exitCode: session.exitCode };
  const logged = await ctx.db.loggedKeys(sessionId);
  const log = new SessionLog(ctx.db, sessionId, claim, logged, ctx.log);
  log.add([{ type: 'system', subtype: 'runner', runner: ctx.runner, resumed: logged.size > 0, session_id: sessionId }], false);
  let stopped = false;
  let agent: AgentSession | undefined;
  ctx.running.set(sessionId, {
    claim,
    stop: () => {
      stopped = true;
      agent?.session.abort();
    },
  });
  const end = async (state: BackgroundState, exitCode: number, result: SessionResult): Promise<SessionRunResult> => {
    await log.flush();
    if (!(await ctx.db.finish(sessionId, claim, state, exitCode, result))) return { exitCode, handedOver: true };
    return { exitCode };
  };
  try {
    const admitted = admit(session.request, ctx.policy, ctx.runner);
    if ('problem' in admitted) {
      log.add([failureResult(sessionId, admitted.problem)], false);
      return await end('failed', 3, { text: '', branch: session.branch, change: 'no changes', files: [], error: admitted.problem });
    }
    let worktree: Worktree;
    try {
      worktree = await ctx.worktrees.prepare(session);
    } catch (error) {
      const message = (error as Error).message;
      log.add([failureResult(sessionId, message)], false);
      return await end('failed', 1, { text: '', branch: session.branch, change: 'no changes', files: [], error: message });
    }
    const steps = sessionSteps({
      worktree,
      // Reading tools change nothing: only the others are followed by a commit.
      changes: (call) => {
        const kind = agent?.session.tools.get(call.name)?.kind;
        return kind !== 'read' && kind !== 'meta';
      },
      beforeRecord: () => log.flush(),
    });
    const subdir = path.join(worktree.dir, session.subdir);
    agent = await ctx.openAgent({
      sessionId,
      cwd: existsSync(subdir) ? subdir : worktree.dir,
      admitted,
      durableSteps: steps,
      trustWorkspace: ctx.trustWorktrees,
    });
    if (stopped) agent.session.abort();
    return await converse({ ctx, session, claim, agent, worktree, log, live: () => steps.live }, end);
  } catch (error) {
    // Fenced out (another runner holds it now) or a failure of the runner's own: the session ends
    // failed with one sentence, unless it is no longer this execution's to end.
    if (!(await ctx.db.holds(sessionId, claim).catch(() => false))) return { exitCode: 130, handedOver: true };
    const message = (error as Error).message ?? String(error);
    log.add([failureResult(sessionId, message)], false);
    return await end('failed', error instanceof ConfigError ? 3 : 1, { text: '', branch: session.branch, change: 'no changes', files: [], error: message });
  } finally {
    ctx.running.delete(sessionId);
    await log.flush();
    if (agent) {
      await agent.end().catch(() => undefined);
      await agent.close().catch(() => undefined);
    }
    ctx.worktrees.remove(sessionId);
  }
}

interface Conversation {
  ctx: SessionRunContext;
  session: BackgroundSession;
  claim: string;
  agent: AgentSession;
  worktree: Worktree;
  log: SessionLog;
  /** False while recorded steps are read back. */
  live: () => boolean;
}

type End = (state: BackgroundState, exitCode: number, result: SessionResult) => Promise<SessionRunResult>;

/** The prompt through core's submit path, its events into the log, its questions to the database, a push after each turn. */
async function converse(run: Conversation, end: End): Promise<SessionRunResult> {
  const { ctx, session, claim, agent, worktree, log } = run;
  const id = session.id;
  const mapper = new SdkMessageMapper({
    sessionId: id,
    includePartialMessages: true,
    replayUserMessages: true,
    modelLimits: (model) => modelLimits(agent.providerId, model),
    workspaceRoot: agent.workspace.root,
  });
  let answerId = '';
  let pushing: Promise<unknown> = Promise.resolve();
  const unsubscribe = agent.session.subscribe((event: AgentEvent) => {
    log.add(mapper.event(event), !run.live());
    if (event.type === 'message_end' && event.message.role === 'assistant' && event.message.id) answerId = event.message.id;
    // Another runner continues from the pushed branch: push after each turn that committed something.
    if (event.type === 'turn_end' && run.live())
      pushing = pushing.then(async () => {
        if (!(await ctx.db.holds(id, claim))) return;
        const problem = await worktree.push();
        if (problem) ctx.log(`session ${id}: could not push ${worktree.branch} (${problem}); trying again after the next turn`);
      });
  });
  log.add([mapper.init(agent.initInfo())], false);
  agent.setAsker(
    databaseAsker({
      db: ctx.db,
      sessionId: id,
      claim,
      log,
      answerId: () => answerId,
      setState: (state) => void ctx.db.setState(id, claim, state).catch(() => false),
    }),
  );
  const started = Date.now();
  let outcome: SubmitOutcome;
  try {
    outcome = await agent.submit({ text: session.prompt, uuid: promptUuid(id) });
  } finally {
    unsubscribe();
  }
  await pushing;
  // Drained or declared dead meanwhile: the session goes on elsewhere, this end is not its end.
  if (!(await ctx.db.holds(id, claim))) return { exitCode: 130, handedOver: true };
  await worktree.commitAll('beans: end of session');
  const summary = await worktree.summary();
  const pushError = summary.commit !== worktree.base ? await worktree.push(true) : undefined;
  const exitCode = outcome.kind === 'turn' ? turnExitCode(outcome) : outcome.kind === 'refused' ? 2 : 0;
  const text = outcome.kind === 'turn' ? outcome.turn.answer : outcome.kind === 'command' ? outcome.text : '';
  const result: SessionResult = {
    text,
    branch: worktree.branch,
    commit: summary.commit,
    change: summary.change,
    files: summary.files,
    ...(pushError ? { pushError } : {}),
    ...(outcome.kind === 'refused' ? { error: outcome.reason } : {}),
  };
  log.add(
    [
      {
        ...mapper.result(submitSummary(outcome, Date.now() - started)),
        branch: worktree.branch,
        change: summary.change,
        ...(pushError ? { push_error: pushError } : {}),
      },
    ],
    false,
  );
  return end(exitCode === 1 || exitCode === 3 || exitCode === 2 ? 'failed' : 'done', exitCode, result);
}

/** A session that could not start: its log ends with a result saying why. */
function failureResult(sessionId: string, error: string): LogMessage {
  return {
    type: 'result',
    subtype: 'error_during_execution',
    is_error: true,
    result: '',
    errors: [error],
    session_id: sessionId,
    num_turns: 0,
    duration_ms: 0,
  };
}
