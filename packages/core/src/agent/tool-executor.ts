import type { ToolCall } from '../llm/types.js';
import type { Authorize } from '../permissions/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { summarizeCall, type ToolContext, type ToolResult } from '../tools/tool.js';
import type { AgentEventSink, PermissionDenial, ToolResultMessage, ToolStatus } from './types.js';

/** Tool output beyond this many characters is cut in the middle; one limit for every tool. */
export const MAX_TOOL_OUTPUT_CHARS = 40_000;

export const SKIPPED_RESULT = 'Skipped: the user sent a new message before this call ran. Read it and decide again.';

export interface ToolBatchOptions {
  tools: ToolRegistry;
  context: Omit<ToolContext, 'signal' | 'onUpdate'>;
  signal: AbortSignal;
  authorize?: Authorize;
  emit: AgentEventSink;
  /** True when a steering message is waiting: calls not yet started are skipped. */
  hasSteering: () => boolean;
  denials: PermissionDenial[];
  /** Receives each batch's results, in the model's order, as soon as the batch is done. */
  onResults?: (results: ToolResultMessage[]) => void;
}

/**
 * Runs one turn's tool calls. Consecutive read-only calls run in parallel; a call that changes
 * something runs alone, in the model's order, so two edits never race. Results come back in the
 * model's order whatever finishes first, and each batch is handed to `onResults` when it is done,
 * so the session log has a finished edit even if a later slow command is killed.
 */
export async function executeToolCalls(calls: readonly ToolCall[], options: ToolBatchOptions): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  let index = 0;
  while (index < calls.length) {
    if (options.hasSteering() || options.signal.aborted) {
      const status: ToolStatus = options.signal.aborted ? 'interrupted' : 'skipped';
      const rest = calls.slice(index).map((call) => finish(call, options, status, status === 'skipped' ? SKIPPED_RESULT : 'Interrupted by the user before this call ran.'));
      results.push(...rest);
      options.onResults?.(rest);
      break;
    }
    const batch = [calls[index]!];
    if (isParallelSafe(calls[index]!, options.tools)) {
      while (index + batch.length < calls.length && isParallelSafe(calls[index + batch.length]!, options.tools)) batch.push(calls[index + batch.length]!);
    }
    index += batch.length;
    const done = await Promise.all(batch.map((call) => executeOne(call, options)));
    results.push(...done);
    options.onResults?.(done);
  }
  return results;
}

function isParallelSafe(call: ToolCall, tools: ToolRegistry): boolean {
  const kind = tools.get(call.name)?.kind;
  return kind === undefined || kind === 'read' || kind === 'meta';
}

async function executeOne(call: ToolCall, options: ToolBatchOptions): Promise<ToolResultMessage> {
  const tool = options.tools.get(call.name);
  options.emit({ type: 'tool_execution_start', call, summary: tool ? summarizeCall(tool, call.arguments) || tool.name : call.name });
  if (!tool) {
    return finish(call, options, 'error', `Unknown tool "${call.name}". Available tools: ${options.tools.names().join(', ')}.`);
  }
  const parsed = tool.schema.safeParse(call.arguments ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `- ${issue.path.length ? issue.path.join('.') : '(input)'}: ${issue.message}`).join('\n');
    return finish(call, options, 'error', `Invalid arguments for ${tool.name}:\n${problems}\nRewrite the call so its input satisfies the tool's schema.`);
  }
  if (options.authorize) {
    let decision;
    try {
      decision = await options.authorize({ call, tool, input: parsed.data }, options.signal);
    } catch (error) {
      decision = { allow: false as const, reason: `Permission check failed: ${errorMessage(error)}` };
    }
    if (!decision.allow) {
      options.denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: call.arguments });
      return finish(call, options, 'denied', `Permission denied: ${decision.reason}`);
    }
  }
  let result: ToolResult;
  try {
    result = await tool.execute(parsed.data, {
      ...options.context,
      signal: options.signal,
      onUpdate: (text) => options.emit({ type: 'tool_execution_update', call, text }),
    });
  } catch (error) {
    if (options.signal.aborted) return finish(call, options, 'interrupted', 'Interrupted by the user while running.');
    return finish(call, options, 'error', `${tool.name} failed: ${errorMessage(error)}`);
  }
  return finish(call, options, result.isError ? 'error' : 'ok', result.content, result);
}

function finish(call: ToolCall, options: ToolBatchOptions, status: ToolStatus, content: string, result?: ToolResult): ToolResultMessage {
  const message: ToolResultMessage = {
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: truncateMiddle(content, MAX_TOOL_OUTPUT_CHARS),
    isError: status !== 'ok',
    status,
    details: result?.details,
    timestamp: Date.now(),
  };
  options.emit({ type: 'tool_execution_end', call, result: message });
  return message;
}

export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n… [${cut} characters cut] …\n${text.slice(text.length - half)}`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
