import type { AfterToolCall, BeforeToolCall } from '../agent/tool-hooks.js';
import { contentText } from '../tools/tool.js';
import type { HookRunner } from './runner.js';

/**
 * PreToolUse and PostToolUse as the loop's before- and after-hooks. Put `beforeToolCall` ahead of the
 * permission check: a deny blocks the call in every mode (`--yolo` too), `allow`/`ask` become the
 * permission hint (deny rules still win over `allow`), and `updatedInput` replaces the input before
 * the permission check judges it. `notify` receives what is for the user only.
 */
export function hookToolCallbacks(
  runner: HookRunner,
  notify: (message: string) => void = () => {},
): { beforeToolCall?: BeforeToolCall; afterToolCall?: AfterToolCall } {
  const beforeToolCall: BeforeToolCall | undefined = runner.has('PreToolUse')
    ? async ({ call, tool, input }, signal) => {
        const outcome = await runner.preToolUse({ id: call.id, tool: tool.name, input: input as Record<string, unknown> }, signal);
        outcome.userMessages.forEach((message) => notify(message));
        if (outcome.stop) return { block: true, reason: `Stopped by a hook: ${outcome.stop.reason}`, status: 'denied', interrupt: true };
        if (outcome.decision === 'deny') return { block: true, reason: `Blocked by a PreToolUse hook: ${outcome.reason}`, status: 'denied' };
        if (!outcome.updatedInput && !outcome.decision) return undefined;
        return { ...(outcome.updatedInput ? { input: outcome.updatedInput } : {}), ...(outcome.decision ? { permission: outcome.decision } : {}) };
      }
    : undefined;

  const afterToolCall: AfterToolCall | undefined = runner.has('PostToolUse')
    ? async ({ call, tool, input, result }, signal) => {
        const outcome = await runner.postToolUse({ id: call.id, tool: tool.name, input: input as Record<string, unknown> }, result, signal);
        outcome.userMessages.forEach((message) => notify(message));
        const notes = [
          outcome.feedback && `PostToolUse hook feedback: ${outcome.feedback}`,
          outcome.additionalContext,
          outcome.stop && `A hook stopped the run: ${outcome.stop.reason}`,
        ].filter((note): note is string => !!note);
        if (notes.length === 0) return undefined;
        return { ...result, content: `${contentText(result.content)}\n\n${notes.join('\n')}` };
      }
    : undefined;

  return { beforeToolCall, afterToolCall };
}
