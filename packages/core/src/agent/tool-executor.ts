import { ToolInputError } from '../errors.js';
import { randomUuid } from '../random-ids.js';
import type { ContentPart, ToolCall } from '../llm/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { summarizeCall, type AnyTool, type ToolContext, type ToolResult } from '../tools/tool.js';
import { saveWholeOutput, wholeOutputNote } from '../tools/saved-output.js';
import { validateToolInput } from '../tools/validate-input.js';
import type { DurableSteps, ToolOutcome } from './durable-steps.js';
import type { AfterToolCall, BeforeToolCall } from './tool-hooks.js';
import type { AgentEventSink, PermissionDenial, ToolResultMessage, ToolStatus } from './types.js';

/** Tool output beyond this many characters is cut in the middle; one limit for every tool. */
export const MAX_TOOL_OUTPUT_CHARS = 40_000;

export const SKIPPED_RESULT = 'Skipped: the user sent a new message before this call ran. Read it and decide again.';

/**
 * Whether a command line only reads, as the permission policy would run it without asking (the
 * session passes its read-only classifier in; the loop knows no policy). Must not throw.
 */
export type ReadOnlyCommandCheck = (command: string, workspaceRoot: string) => Promise<boolean>;

export interface ToolBatchOptions {
  tools: ToolRegistry;
  context: Omit<ToolContext, 'signal' | 'onUpdate'>;
  signal: AbortSignal;
  beforeToolCall?: BeforeToolCall;
  afterToolCall?: AfterToolCall;
  emit: AgentEventSink;
  /** True when a steering message is waiting: calls that change things and have not started are skipped. */
  hasSteering: () => boolean;
  /** Once the user steers, a command line this says only reads still runs; without it, every command line is skipped. */
  isReadOnlyCommand?: ReadOnlyCommandCheck;
  denials: PermissionDenial[];
  /** Stops the run (a permission answer asked to interrupt). */
  interrupt?: () => void;
  /** Receives each batch's results, in the model's order, as soon as the batch is done. */
  onResults?: (results: ToolResultMessage[]) => void;
  /** Each call is a durable step: done once, its recorded result read back on a replay (runners). */
  steps?: DurableSteps;
}

/**
 * Runs one turn's tool calls. Consecutive read-only calls run in parallel; a call that changes
 * something runs alone, in the model's order, so two edits never race. Results come back in the
 * model's order whatever finishes first, and each batch is handed to `onResults` when it is done,
 * so the session log has a finished edit even if a later slow command is killed. Once the user
 * steers, the calls that would change something are skipped; reading calls (and command lines that
 * only read) still run, since their results help the model answer the new message.
 */
export async function executeToolCalls(calls: readonly ToolCall[], options: ToolBatchOptions): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  let index = 0;
  while (index < calls.length) {
    const call = calls[index];
    if (options.signal.aborted) {
      const rest = calls.slice(index).map((pending) => finish(pending, options, 'interrupted', 'Interrupted by the user before this call ran.'));
      results.push(...rest);
      options.onResults?.(rest);
      break;
    }
    if (options.hasSteering() && !(await onlyReads(call, options))) {
      const skipped = [finish(call, options, 'skipped', SKIPPED_RESULT)];
      results.push(...skipped);
      options.onResults?.(skipped);
      index += 1;
      continue;
    }
    const batch = [call];
    if (isReadOnly(call, options.tools)) {
      while (index + batch.length < calls.length && isReadOnly(calls[index + batch.length], options.tools)) batch.push(calls[index + batch.length]);
    }
    index += batch.length;
    const done = await Promise.all(batch.map((pending) => (options.steps ? durableOne(pending, options, options.steps) : executeOne(pending, options))));
    results.push(...done);
    options.onResults?.(done);
  }
  return results;
}

function isReadOnly(call: ToolCall, tools: ToolRegistry): boolean {
  const kind = tools.get(call.name)?.kind;
  return kind === undefined || kind === 'read' || kind === 'meta';
}

/** A reading call, or a command line the permission policy would run without asking as read-only. */
async function onlyReads(call: ToolCall, options: ToolBatchOptions): Promise<boolean> {
  if (isReadOnly(call, options.tools)) return true;
  const command = call.arguments.command;
  if (options.tools.get(call.name)?.kind !== 'execute' || typeof command !== 'string' || !options.isReadOnlyCommand) return false;
  return options.isReadOnlyCommand(command, options.context.workspace.root).catch(() => false);
}

/**
 * A call as a durable step: the whole call (hooks, the permission question, the run) is the step,
 * so a replayed call neither asks nor runs; what it told the run (a denial, an interrupt) comes back
 * with its result. Listeners still see it start and end.
 */
async function durableOne(call: ToolCall, options: ToolBatchOptions, steps: DurableSteps): Promise<ToolResultMessage> {
  const { value, replayed } = await steps.toolResult(call, async (): Promise<ToolOutcome> => {
    const denials: PermissionDenial[] = [];
    let interrupt = false;
    const message = await executeOne(call, { ...options, denials, interrupt: () => (interrupt = true) });
    return { message, ...(denials[0] ? { denial: denials[0] } : {}), ...(interrupt ? { interrupt } : {}) };
  });
  if (value.denial) options.denials.push(value.denial);
  if (value.interrupt) options.interrupt?.();
  if (replayed) {
    const tool = options.tools.get(call.name);
    options.emit({ type: 'tool_execution_start', call, summary: tool ? summarizeCall(tool, call.arguments) || tool.name : call.name });
    options.emit({ type: 'tool_execution_end', call, result: value.message });
  }
  return value.message;
}

async function executeOne(call: ToolCall, options: ToolBatchOptions): Promise<ToolResultMessage> {
  const tool = options.tools.get(call.name);
  options.emit({ type: 'tool_execution_start', call, summary: tool ? summarizeCall(tool, call.arguments) || tool.name : call.name });
  if (!tool) {
    return finish(call, options, 'error', `Unknown tool "${call.name}". Available tools: ${options.tools.names().join(', ')}.`);
  }
  // The model has only seen the name of a deferred tool: it must load the schema before a call.
  if (options.tools.deferral?.isPending(call.name)) {
    return finish(
      call,
      options,
      'error',
      `${call.name} is a deferred tool and its schema is not loaded yet. Load it first with tool_search, query "select:${call.name}", then call it.`,
    );
  }
  let input: unknown;
  const checked = await validateToolInput(tool, call.arguments);
  if (!checked.ok) return finish(call, options, 'error', invalidInput(tool, checked.problems));
  input = checked.value;
  // A call bound to fail (old_string not in the file) fails now: no one is asked to approve it.
  const problem = await checkBeforeAsking(tool, input, options);
  if (problem !== undefined) return finish(call, options, options.signal.aborted ? 'interrupted' : 'error', problem);

  if (options.beforeToolCall) {
    const before = await guardHook(() => options.beforeToolCall!({ call, tool, input }, options.signal));
    if (before && 'failed' in before) return finish(call, options, 'error', before.failed);
    if (before?.block) {
      if (before.status !== 'error') options.denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.arguments });
      if (before.interrupt) options.interrupt?.();
      return finish(call, options, before.status === 'error' ? 'error' : 'denied', before.reason);
    }
    if (before?.input !== undefined) {
      const again = await validateToolInput(tool, before.input);
      if (!again.ok) return finish(call, options, 'error', invalidInput(tool, again.problems));
      input = again.value;
    }
  }

  let result: ToolResult;
  try {
    result = await tool.execute(input, {
      ...options.context,
      ...(options.tools.deferral ? { deferredTools: options.tools.deferral } : {}),
      signal: options.signal,
      callId: call.id,
      emit: options.emit,
      onUpdate: (text) => options.emit({ type: 'tool_execution_update', call, text }),
    });
  } catch (error) {
    if (options.signal.aborted) return finish(call, options, 'interrupted', 'Interrupted by the user while running.');
    return finish(call, options, 'error', `${tool.name} failed: ${errorMessage(error)}`);
  }
  if (options.afterToolCall) {
    const after = await guardHook(() => options.afterToolCall!({ call, tool, input, result }, options.signal));
    if (after && 'failed' in after) return finish(call, options, 'error', after.failed);
    if (after) result = after;
  }
  return finish(call, options, result.isError ? 'error' : 'ok', result.content, result);
}

/** The tool's own check before the hooks and the permission question; the message when it fails. */
async function checkBeforeAsking(tool: AnyTool, input: unknown, options: ToolBatchOptions): Promise<string | undefined> {
  if (!tool.check) return undefined;
  try {
    await tool.check(input, { ...options.context, signal: options.signal });
    return undefined;
  } catch (error) {
    if (options.signal.aborted) return 'Interrupted by the user before this call ran.';
    return error instanceof ToolInputError ? error.message : undefined;
  }
}

/** Hooks must not throw; one that does fails its call instead of the run. */
async function guardHook<T>(run: () => Promise<T | void>): Promise<T | { failed: string } | undefined> {
  try {
    return (await run()) ?? undefined;
  } catch (error) {
    return { failed: `A tool hook failed: ${errorMessage(error)}` };
  }
}

function invalidInput(tool: AnyTool, problems: string[]): string {
  return `Invalid arguments for ${tool.name}:\n${problems.map((problem) => `- ${problem}`).join('\n')}\nRewrite the call so its input satisfies the tool's schema.`;
}

function finish(call: ToolCall, options: ToolBatchOptions, status: ToolStatus, content: string | ContentPart[], result?: ToolResult): ToolResultMessage {
  const message: ToolResultMessage = {
    role: 'tool',
    uuid: randomUuid(),
    toolCallId: call.id,
    toolName: call.name,
    content: boundContent(content, (text) => saveWholeOutput(options.context.outputDir, `${call.name}-${call.id}`, text)),
    isError: status !== 'ok',
    status,
    details: result?.details,
    ...(result?.metadata ? { metadata: result.metadata } : {}),
    timestamp: Date.now(),
  };
  options.emit({ type: 'tool_execution_end', call, result: message });
  return message;
}

/** Cuts what is too long for the model; the whole text is saved first, and the model told where. */
function boundContent(content: string | ContentPart[], save: (text: string) => string | undefined): string | ContentPart[] {
  const bound = (text: string) => {
    if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
    const file = save(text);
    const cut = truncateMiddle(text, MAX_TOOL_OUTPUT_CHARS);
    return file ? `${cut}\n${wholeOutputNote(file, `The output was ${text.length.toLocaleString('en-US')} characters and was cut in the middle.`)}` : cut;
  };
  if (typeof content === 'string') return bound(content);
  return content.map((part) => (part.type === 'text' ? { ...part, text: bound(part.text) } : part));
}

export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n… [${cut} characters cut] …\n${text.slice(text.length - half)}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
