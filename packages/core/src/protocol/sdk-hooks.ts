import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import { interpretHookOutput, type HookOutcome } from '../claude/hook-output.js';
import { claudeToolName, fromClaudeInput, matcherCovers, toClaudeInput } from '../claude/vocabulary.js';
import { contentText } from '../tools/tool.js';
import type { ControlChannel } from './control-channel.js';

/** The hooks an SDK program registered in `initialize`: per event, matchers with callback ids. */
export type SdkHookRegistrations = Record<string, { matcher?: string | null; hookCallbackIds?: string[]; timeout?: number }[] | undefined>;

export interface SdkHookContext {
  sessionId(): string;
  cwd: string;
  permissionMode(): string;
  transcriptPath(): string;
}

/**
 * PreToolUse and PostToolUse callbacks of the SDK program as the loop's before- and after-hooks. The
 * program receives Claude Code's payload (tool names and fields in its vocabulary) over
 * `hook_callback`, and its answer is read as a Claude Code hook result.
 */
export function sdkToolHooks(
  hooks: SdkHookRegistrations,
  channel: ControlChannel,
  context: SdkHookContext,
): { beforeToolCall?: BeforeToolCall; afterToolCall?: AfterToolCall } {
  const ask = async (event: string, beansTool: string, payload: Record<string, unknown>, toolUseId: string, signal: AbortSignal): Promise<HookOutcome[]> => {
    const ids = (hooks[event] ?? []).filter((entry) => matcherCovers(entry.matcher ?? undefined, beansTool)).flatMap((entry) => entry.hookCallbackIds ?? []);
    const input = {
      session_id: context.sessionId(),
      transcript_path: context.transcriptPath(),
      cwd: context.cwd,
      permission_mode: context.permissionMode(),
      hook_event_name: event,
      ...payload,
    };
    const outputs = await Promise.all(
      ids.map((id) =>
        channel
          .request({ subtype: 'hook_callback', callback_id: id, input, tool_use_id: toolUseId }, signal)
          .catch((error: Error) => ({ systemMessage: `Hook callback failed: ${error.message}` })),
      ),
    );
    return outputs.map(interpretHookOutput);
  };

  const beforeToolCall: BeforeToolCall | undefined = hooks.PreToolUse?.length
    ? async ({ call, tool, input }, signal) => {
        const outcomes = await ask(
          'PreToolUse',
          tool.name,
          { tool_name: claudeToolName(tool.name), tool_input: toClaudeInput(tool.name, input as Record<string, unknown>, context.cwd), tool_use_id: call.id },
          call.id,
          signal,
        );
        const stop = outcomes.find((outcome) => outcome.stop);
        if (stop?.stop) return { block: true, reason: `Stopped by a hook: ${stop.stop.reason}`, status: 'denied', interrupt: true };
        const blocked = outcomes.find((outcome) => outcome.block);
        if (blocked?.block) return { block: true, reason: `Blocked by a PreToolUse hook: ${blocked.block.reason}`, status: 'denied' };
        const updated = outcomes.find((outcome) => outcome.updatedInput)?.updatedInput;
        // Any hook that wants the prompt wins over one that approves.
        const permission = outcomes.some((outcome) => outcome.permission === 'ask')
          ? 'ask'
          : outcomes.some((outcome) => outcome.permission === 'allow')
            ? 'allow'
            : undefined;
        if (!updated && !permission) return undefined;
        return { ...(updated ? { input: fromClaudeInput(tool.name, updated) } : {}), ...(permission ? { permission } : {}) };
      }
    : undefined;

  const afterToolCall: AfterToolCall | undefined = hooks.PostToolUse?.length
    ? async ({ call, tool, input, result }, signal) => {
        const outcomes = await ask(
          'PostToolUse',
          tool.name,
          {
            tool_name: claudeToolName(tool.name),
            tool_input: toClaudeInput(tool.name, input as Record<string, unknown>, context.cwd),
            tool_response: contentText(result.content),
            tool_use_id: call.id,
          },
          call.id,
          signal,
        );
        const notes = outcomes
          .flatMap((outcome) => [outcome.block ? `A PostToolUse hook objected: ${outcome.block.reason}` : undefined, outcome.additionalContext])
          .filter((note): note is string => !!note);
        if (notes.length === 0) return undefined;
        return { ...result, content: `${contentText(result.content)}\n\n${notes.join('\n')}` };
      }
    : undefined;

  return { beforeToolCall, afterToolCall };
}
