import type { ChatSession } from '../agent/chat-session.js';
import { convertToLlm } from '../agent/convert.js';
import { spentUsage } from '../agent/usage.js';
import { UsageError } from '../errors.js';
import type { LLMClient, LlmMessage } from '../llm/types.js';
import type { Live } from './live.js';
import type { SubmitInput, SubmitOutcome } from './submit.js';

export type GoalPhase = 'working' | 'checking' | 'parked' | 'met' | 'stopped' | 'limit' | 'failed';

/** A `/goal`: the condition, its limits, and how far it got. */
export interface GoalState {
  condition: string;
  maxTurns: number;
  maxCostUsd: number;
  phase: GoalPhase;
  /** Turns the goal ran (its own prompts). */
  turns: number;
  /** What the session spent since the goal was set: its turns and its checks. */
  costUsd: number;
  startedAt: number;
  /** The newest check's reason, or why the goal ended. */
  reason?: string;
  /** While parked: when it checks in next (epoch ms). */
  parkedUntil?: number;
}

const GOAL_DEFAULT_TURNS = 20;
const GOAL_DEFAULT_COST_USD = 5;
/** A goal's limits when `/goal` names none. */
export const goalDefaults = { maxTurns: GOAL_DEFAULT_TURNS, maxCostUsd: GOAL_DEFAULT_COST_USD } as const;
/** Background work parks the goal: it checks in after 15 s, then twice as long each time, up to 10 minutes. */
const PARK_FIRST_MS = 15_000;
const PARK_MAX_MS = 600_000;
const BUSY_RETRY_MS = 1000;
/** The check reads the newest part of the transcript, as text: enough for evidence, bounded in cost. */
const TRANSCRIPT_CHARS = 60_000;

const JUDGE_SYSTEM =
  'You check whether a goal has been reached, for someone who cannot watch the work. You read the transcript of a coding session ' +
  'and a condition. The condition holds only when the transcript shows evidence of it: the output of a command that proves it (tests ' +
  'passing, a build succeeding), file contents, tool results. What the assistant says about its own work is not evidence. ' +
  'Answer with one JSON object and nothing else: {"met": true|false, "reason": "one sentence: the evidence, or what is missing"}.';

export interface GoalsInput {
  live: Pick<Live, 'session'>;
  /** The check's model client: a separate request, never the working model's say-so. */
  client: LLMClient;
  /** Background commands still running park the goal. */
  runningBackgroundTasks(): number;
  setTimeout?: (run: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export interface Goals {
  connect(submit: (input: SubmitInput) => Promise<SubmitOutcome>): void;
  /** Sets the goal and starts working on it (when the session is idle). Throws while one is active. */
  set(condition: string, limits?: { maxTurns?: number; maxCostUsd?: number }): GoalState;
  /** The active goal, or the one that ended last. */
  current(): GoalState | undefined;
  readonly active: boolean;
  /** Stops the active goal (Esc, `/goal clear`); returns it, or undefined when none was active. */
  stop(reason: string): GoalState | undefined;
  onChange(listener: (goal: GoalState) => void): () => void;
}

/** Part: `/goal`: turn after turn until a separate check finds the condition shown to hold, within a turn and a cost limit. */
export function createGoals(input: GoalsInput): Goals {
  const later = input.setTimeout ?? ((run, ms) => setTimeout(run, ms));
  const cancelLater = input.clearTimeout ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
  let submit: ((input: SubmitInput) => Promise<SubmitOutcome>) | undefined;
  let goal: GoalState | undefined;
  let run: { stopped: boolean; wake?: () => void; timer?: unknown } | undefined;
  const listeners = new Set<(goal: GoalState) => void>();
  const changed = () => goal && listeners.forEach((listener) => listener(goal!));
  const isActive = () => goal !== undefined && ['working', 'checking', 'parked'].includes(goal.phase);

  function end(phase: GoalPhase, reason: string): void {
    if (!goal || !isActive()) return;
    goal.phase = phase;
    goal.reason = reason;
    goal.parkedUntil = undefined;
    if (run) {
      run.stopped = true;
      if (run.timer !== undefined) cancelLater(run.timer);
      run.wake?.();
    }
    changed();
  }

  /** Waits `ms`, or less when the goal is stopped meanwhile. */
  function pause(ms: number, current: NonNullable<typeof run>): Promise<void> {
    return new Promise((resolve) => {
      current.wake = resolve;
      current.timer = later(resolve, ms);
    });
  }

  async function work(state: GoalState, current: NonNullable<typeof run>): Promise<void> {
    const session = input.live.session;
    const spentAtStart = session.totalUsage.costUsd;
    const spent = () => input.live.session.totalUsage.costUsd - spentAtStart;
    let text = firstGoalPrompt(state.condition);
    let parkMs = PARK_FIRST_MS;
    while (!current.stopped) {
      const outcome = await submit!({ text, whenIdle: true });
      if (current.stopped) return;
      if (outcome.kind === 'refused' && outcome.busy) {
        await pause(BUSY_RETRY_MS, current);
        continue;
      }
      if (outcome.kind !== 'turn') return end('failed', outcome.kind === 'refused' ? outcome.reason : `its prompt ran as ${outcome.kind}`);
      const { result, refused } = outcome.turn;
      state.turns += 1;
      state.costUsd = spent();
      if (result.stopReason === 'aborted') return end('stopped', 'The turn was interrupted.');
      if (refused) return end('failed', refused.reason);
      if (result.stopReason === 'error') return end('failed', result.failure?.message ?? 'the turn failed');
      state.phase = 'checking';
      changed();
      const verdict = await judgeGoal(input.client, state.condition, input.live.session);
      state.costUsd = spent();
      if (current.stopped) return;
      if (verdict.met) return end('met', verdict.reason);
      state.reason = verdict.reason;
      if (state.turns >= state.maxTurns) return end('limit', `Its turn limit (${state.maxTurns}) was reached; the check said: ${verdict.reason}`);
      if (state.costUsd >= state.maxCostUsd) return end('limit', `Its cost limit ($${state.maxCostUsd}) was reached; the check said: ${verdict.reason}`);
      if (input.runningBackgroundTasks() > 0) {
        state.phase = 'parked';
        state.parkedUntil = Date.now() + parkMs;
        changed();
        await pause(parkMs, current);
        if (current.stopped) return;
        parkMs = Math.min(PARK_MAX_MS, parkMs * 2);
        text = `Checking in on the goal (background work was still running): ${state.condition}\nThe check said: ${verdict.reason}\nLook at the background work's output, then carry on.`;
      } else {
        parkMs = PARK_FIRST_MS;
        text = `The goal does not hold yet. The check said: ${verdict.reason}\nKeep working toward it: ${state.condition}`;
      }
      state.phase = 'working';
      state.parkedUntil = undefined;
      changed();
    }
  }

  return {
    connect(next) {
      submit = next;
    },
    set(condition, limits = {}) {
      const text = condition.trim();
      if (!text) throw new UsageError('Say what must hold: /goal <condition>, e.g. /goal npm test passes.');
      if (isActive()) throw new UsageError(`A goal is active (${goal!.condition}); stop it first with /goal clear.`);
      if (!submit) throw new UsageError('This session cannot run goals.');
      const state: GoalState = {
        condition: text,
        maxTurns: limits.maxTurns ?? GOAL_DEFAULT_TURNS,
        maxCostUsd: limits.maxCostUsd ?? GOAL_DEFAULT_COST_USD,
        phase: 'working',
        turns: 0,
        costUsd: 0,
        startedAt: Date.now(),
      };
      goal = state;
      const current = { stopped: false };
      run = current;
      changed();
      void work(state, current).catch((error: unknown) => end('failed', error instanceof Error ? error.message : String(error)));
      return state;
    },
    current: () => goal,
    get active() {
      return isActive();
    },
    stop(reason) {
      if (!isActive()) return undefined;
      end('stopped', reason);
      return goal;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The separate check: one request with the transcript as text, no tools; its usage counts like any request's. */
async function judgeGoal(client: LLMClient, condition: string, session: ChatSession): Promise<{ met: boolean; reason: string }> {
  const messages: LlmMessage[] = [{ role: 'user', content: `<transcript>\n${transcriptText(session)}\n</transcript>\n\nThe condition: ${condition}` }];
  const result = await client.chat({ model: session.model, system: JUDGE_SYSTEM, messages, maxOutputTokens: 400 });
  const usage = spentUsage(result.usage);
  if (usage) session.emit({ type: 'usage', usage, model: session.model, purpose: 'goal-check' });
  if (result.failure) return { met: false, reason: `the check could not run: ${result.failure.message}` };
  return readVerdict(result.text);
}

function firstGoalPrompt(condition: string): string {
  return `Work toward this goal until it holds: ${condition}\n\nShow the evidence in the conversation when it does (run the command that proves it, so its output is here): a separate check reads the transcript after each turn and decides; your word alone does not count.`;
}

/** The newest part of the conversation as plain text: messages, tool calls and their results. */
function transcriptText(session: ChatSession): string {
  const lines: string[] = [];
  for (const message of convertToLlm(session.messages)) {
    const content =
      typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
    const calls =
      'toolCalls' in message && message.toolCalls?.length
        ? `\n[calls ${message.toolCalls.map((call) => `${call.name} ${JSON.stringify(call.arguments)}`).join('; ')}]`
        : '';
    lines.push(`## ${message.role}\n${content}${calls}`);
  }
  const text = lines.join('\n\n');
  return text.length > TRANSCRIPT_CHARS ? `[earlier turns left out]\n${text.slice(-TRANSCRIPT_CHARS)}` : text;
}

/** The check's JSON answer; anything unreadable counts as not met. */
export function readVerdict(text: string): { met: boolean; reason: string } {
  const match = /\{[\s\S]*\}/.exec(text);
  if (match) {
    try {
      const parsed = JSON.parse(match[0]) as { met?: unknown; reason?: unknown };
      if (typeof parsed.met === 'boolean')
        return {
          met: parsed.met,
          reason: typeof parsed.reason === 'string' && parsed.reason.trim() ? parsed.reason.trim() : parsed.met ? 'the condition holds' : 'not yet',
        };
    } catch {
      // fall through
    }
  }
  return { met: false, reason: `the check's answer was not a verdict (${text.trim().slice(0, 120) || 'empty'})` };
}
