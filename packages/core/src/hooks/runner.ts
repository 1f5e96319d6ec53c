import { interpretHookOutput, type HookOutcome } from '../claude/hook-output.js';
import { claudeToolName, fromClaudeInput, matcherCovers, toClaudeInput } from '../claude/vocabulary.js';
import { runHookCommand, type CommandRun } from './run-command.js';
import type { HookEventName } from './schema.js';
import type {
  HookOutcomeBase,
  NoticeOutcome,
  PostToolUseOutcome,
  PreToolUseOutcome,
  SessionStartOutcome,
  StopOutcome,
  UserPromptSubmitOutcome,
} from './outcomes.js';
import { claudeToolResponse, type ToolResultLike } from './tool-response.js';
import { describeHookSource, type HookCommand, type HookSet } from './types.js';

export interface HookRunnerOptions {
  hooks: HookSet | readonly HookCommand[];
  sessionId: string | (() => string);
  transcriptPath: string | (() => string);
  /** The workspace root: hooks run there and CLAUDE_PROJECT_DIR names it. */
  cwd: string;
  /** Claude Code's or Beans' mode name, read at each event. */
  permissionMode: () => string;
  /** The environment hooks start from (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** The W3C trace context of the turn in progress (telemetry), passed to hooks as TRACEPARENT. */
  traceparent?: () => string | undefined;
}

/** A tool call as Beans sees it: its id, Beans tool name and Beans parameters. */
export interface ToolCallInfo {
  id: string;
  tool: string;
  input: Record<string, unknown>;
}

export interface HookRunner {
  /** True when at least one hook is configured for the event (callers can skip building payloads). */
  has(event: HookEventName): boolean;
  preToolUse(call: ToolCallInfo, signal?: AbortSignal): Promise<PreToolUseOutcome>;
  postToolUse(call: ToolCallInfo, result: ToolResultLike, signal?: AbortSignal): Promise<PostToolUseOutcome>;
  userPromptSubmit(prompt: string, signal?: AbortSignal): Promise<UserPromptSubmitOutcome>;
  /** `stopHookActive` defaults to whether the previous stop of this prompt was refused by a hook. */
  stop(options?: { stopHookActive?: boolean }, signal?: AbortSignal): Promise<StopOutcome>;
  /** `agent`: which child is stopping (Claude Code's `agent_id`, `agent_type`, `agent_transcript_path`, `last_assistant_message`); matchers select `agent_type`. */
  subagentStop(options?: { stopHookActive?: boolean; agent?: SubagentStopInfo }, signal?: AbortSignal): Promise<StopOutcome>;
  sessionStart(source: 'startup' | 'resume' | 'clear' | 'compact', signal?: AbortSignal): Promise<SessionStartOutcome>;
  sessionEnd(reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other', signal?: AbortSignal): Promise<NoticeOutcome>;
  preCompact(trigger: 'manual' | 'auto', customInstructions?: string, signal?: AbortSignal): Promise<NoticeOutcome>;
  notification(message: string, signal?: AbortSignal): Promise<NoticeOutcome>;
}

/** One hook's run, read the way Claude Code reads it. */
interface Reading {
  hook: HookCommand;
  run: CommandRun;
  /** Exit 2: the event's blocking meaning, with stderr. */
  blocking?: string;
  /** Exit 0 with a JSON object on stdout. */
  json?: HookOutcome;
  /** Exit 0 with plain stdout. */
  text?: string;
  /** Timeout, crash, any other exit code: shown to the user, nothing else happens. */
  error?: string;
}

interface SubagentStopInfo {
  /** The task call that ran the child. */
  id: string;
  type: string;
  transcriptPath: string;
  lastMessage: string;
}

export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const all = 'hooks' in options.hooks ? options.hooks.hooks : options.hooks;
  const value = (v: string | (() => string)) => (typeof v === 'function' ? v() : v);
  let stopRefused = false;
  let subagentStopRefused = false;

  /** `subject`: the Beans tool name for tool events; SessionStart's source and PreCompact's trigger, which Claude Code's matchers also select. */
  const run = async (
    event: HookEventName,
    payload: Record<string, unknown>,
    signal: AbortSignal | undefined,
    subject?: { tool: string } | { value: string },
  ): Promise<Reading[]> => {
    const matched = all.filter((hook) => hook.event === event && matches(hook.matcher, subject));
    // Identical commands run once per event, as in Claude Code.
    const unique = [...new Map(matched.map((hook) => [hook.command, hook])).values()];
    if (unique.length === 0) return [];
    const input = JSON.stringify({
      session_id: value(options.sessionId),
      transcript_path: value(options.transcriptPath),
      cwd: options.cwd,
      permission_mode: options.permissionMode(),
      hook_event_name: event,
      ...payload,
    });
    return Promise.all(
      unique.map(async (hook) =>
        read(
          hook,
          await runHookCommand(hook.command, { cwd: options.cwd, env: hookEnv(options, hook), input, timeoutMs: hook.timeout * 1000, signal }),
          signal?.aborted === true,
        ),
      ),
    );
  };

  const base = (readings: Reading[]): HookOutcomeBase => {
    const userMessages: string[] = [];
    let stop: { reason: string } | undefined;
    for (const reading of readings) {
      if (reading.error) userMessages.push(reading.error);
      if (reading.json?.systemMessage) userMessages.push(reading.json.systemMessage);
      if (reading.json?.stop && !stop) stop = reading.json.stop;
    }
    return { userMessages, ...(stop ? { stop } : {}), runs: readings.map(({ hook, run }) => ({ hook, run })) };
  };

  const contextOf = (readings: Reading[]) => joined(readings.flatMap((r) => [r.text, r.json?.additionalContext]));

  const stopEvent = async (event: 'Stop' | 'SubagentStop', active: boolean, signal?: AbortSignal, agent?: SubagentStopInfo): Promise<StopOutcome> => {
    const payload = agent
      ? { agent_id: agent.id, agent_type: agent.type, agent_transcript_path: agent.transcriptPath, last_assistant_message: agent.lastMessage }
      : {};
    const readings = await run(event, { stop_hook_active: active, ...payload }, signal, agent ? { value: agent.type } : undefined);
    const outcome = base(readings);
    const continueWith = joined(readings.flatMap((r) => [r.blocking, r.json?.block?.reason]));
    return { ...outcome, ...(continueWith && !outcome.stop ? { continueWith } : {}) };
  };

  return {
    has: (event) => all.some((hook) => hook.event === event),

    async preToolUse(call, signal) {
      const readings = await run(
        'PreToolUse',
        { tool_name: claudeToolName(call.tool), tool_input: toClaudeInput(call.tool, call.input, options.cwd), tool_use_id: call.id },
        signal,
        { tool: call.tool },
      );
      const outcome: PreToolUseOutcome = base(readings);
      const denials = readings.flatMap((r) => [r.blocking, r.json?.block?.reason]).filter((reason): reason is string => reason !== undefined);
      if (denials.length) return { ...outcome, decision: 'deny', reason: denials.join('\n') };
      const updated = readings.find((r) => r.json?.updatedInput)?.json?.updatedInput;
      if (updated) outcome.updatedInput = fromClaudeInput(call.tool, updated);
      if (readings.some((r) => r.json?.permission === 'ask')) outcome.decision = 'ask';
      else if (readings.some((r) => r.json?.permission === 'allow')) outcome.decision = 'allow';
      return outcome;
    },

    async postToolUse(call, result, signal) {
      const readings = await run(
        'PostToolUse',
        {
          tool_name: claudeToolName(call.tool),
          tool_input: toClaudeInput(call.tool, call.input, options.cwd),
          tool_response: claudeToolResponse(call.tool, call.input, result, options.cwd),
          tool_use_id: call.id,
        },
        signal,
        { tool: call.tool },
      );
      const feedback = joined(readings.flatMap((r) => [r.blocking, r.json?.block?.reason]));
      const additionalContext = joined(readings.map((r) => r.json?.additionalContext));
      return { ...base(readings), ...(feedback ? { feedback } : {}), ...(additionalContext ? { additionalContext } : {}) };
    },

    async userPromptSubmit(prompt, signal) {
      stopRefused = false;
      const readings = await run('UserPromptSubmit', { prompt }, signal);
      const outcome: UserPromptSubmitOutcome = base(readings);
      const reasons = readings.flatMap((r) => [r.blocking, r.json?.block?.reason]).filter((reason): reason is string => reason !== undefined);
      if (reasons.length) return { ...outcome, blocked: { reason: reasons.join('\n') || 'A UserPromptSubmit hook blocked the prompt.' } };
      const context = contextOf(readings);
      return { ...outcome, ...(context ? { context } : {}) };
    },

    async stop(opts, signal) {
      const outcome = await stopEvent('Stop', opts?.stopHookActive ?? stopRefused, signal);
      stopRefused = outcome.continueWith !== undefined;
      return outcome;
    },

    async subagentStop(opts, signal) {
      const outcome = await stopEvent('SubagentStop', opts?.stopHookActive ?? subagentStopRefused, signal, opts?.agent);
      subagentStopRefused = outcome.continueWith !== undefined;
      return outcome;
    },

    async sessionStart(source, signal) {
      const readings = await run('SessionStart', { source }, signal, { value: source });
      const context = contextOf(readings);
      return { ...base(readings), ...(context ? { context } : {}) };
    },

    sessionEnd: async (reason, signal) => notices(base, await run('SessionEnd', { reason }, signal)),
    preCompact: async (trigger, customInstructions, signal) =>
      notices(base, await run('PreCompact', { trigger, custom_instructions: customInstructions ?? '' }, signal, { value: trigger })),
    notification: async (message, signal) => notices(base, await run('Notification', { message }, signal)),
  };
}

/** Events where exit 2 has no blocking meaning: its stderr is shown to the user. */
function notices(base: (readings: Reading[]) => HookOutcomeBase, readings: Reading[]): NoticeOutcome {
  const outcome = base(readings);
  for (const reading of readings) if (reading.blocking) outcome.userMessages.push(reading.blocking);
  return outcome;
}

/** `stopped`: the run was aborted (the user interrupted), so a killed hook is no failure to report. */
function read(hook: HookCommand, run: CommandRun, stopped: boolean): Reading {
  const name = `${hook.event} hook "${hook.command}" (${describeHookSource(hook.source)})`;
  if (run.startError) return { hook, run, error: `${name} could not start: ${run.startError}` };
  if (run.timedOut) return { hook, run, error: `${name} did not finish within ${hook.timeout} s and was stopped.` };
  if (stopped && run.exitCode === null) return { hook, run };
  if (run.exitCode === 2) return { hook, run, blocking: run.stderr.trim() || `Blocked by ${name}.` };
  if (run.exitCode !== 0) {
    const said = run.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500);
    return { hook, run, error: `${name} failed (exit ${run.exitCode ?? 'killed'})${said ? `: ${said}` : '.'}` };
  }
  const stdout = run.stdout.trim();
  if (stdout.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(stdout);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { hook, run, json: interpretHookOutput(parsed) };
    } catch {
      // Not JSON after all: plain text, as Claude Code treats it.
    }
  }
  return { hook, run, ...(stdout ? { text: stdout } : {}) };
}

function matches(matcher: string | undefined, subject: { tool: string } | { value: string } | undefined): boolean {
  if (!subject) return true;
  if ('tool' in subject) return matcherCovers(matcher, subject.tool);
  const pattern = matcher?.trim() ?? '';
  if (pattern === '' || pattern === '*') return true;
  try {
    return new RegExp(`^(?:${pattern})$`).test(subject.value);
  } catch {
    return pattern === subject.value;
  }
}

function hookEnv(options: HookRunnerOptions, hook: HookCommand): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), CLAUDE_PROJECT_DIR: options.cwd, BEANS_PROJECT_DIR: options.cwd };
  const traceparent = options.traceparent?.();
  if (traceparent) env.TRACEPARENT = traceparent;
  if (hook.source.kind === 'plugin') {
    env.CLAUDE_PLUGIN_ROOT = hook.source.root;
    env.BEANS_PLUGIN_ROOT = hook.source.root;
  }
  return env;
}

function joined(parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((part): part is string => !!part && part.trim() !== '');
  return kept.length ? kept.join('\n') : undefined;
}
