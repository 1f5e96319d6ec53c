import type { ToolCall } from '../llm/types.js';
import type { AnyTool, ToolResult } from '../tools/tool.js';

/** A validated call about to run (or that just ran). */
export interface ToolCallContext {
  call: ToolCall;
  tool: AnyTool;
  /** Validated input; a before-hook may replace it (it is validated again). */
  input: unknown;
  /**
   * A decision an earlier hook made about asking: `allow` skips the permission prompt (deny rules
   * still apply), `ask` forces it. Set by hooks such as Claude Code's PreToolUse.
   */
  permission?: 'allow' | 'ask';
}

export type BeforeToolCallResult =
  | {
      block: true;
      /** Goes to the model as the call's result. */
      reason: string;
      /** `denied` calls are listed in permission_denials. */
      status?: 'denied' | 'error';
      /** Stop the whole run after this call (an SDK program answered deny + interrupt). */
      interrupt?: boolean;
    }
  | { block?: false; input?: unknown; permission?: 'allow' | 'ask' };

/** Runs before a call; may block it, change its input or decide about asking. Must not throw. */
export type BeforeToolCall = (context: ToolCallContext, signal: AbortSignal) => Promise<BeforeToolCallResult | void>;

/** Runs after a call with its result; may return a replacement result. Must not throw. */
export type AfterToolCall = (context: ToolCallContext & { result: ToolResult }, signal: AbortSignal) => Promise<ToolResult | void>;

/**
 * Runs before-hooks in order: a block ends the chain, a changed input or permission decision is
 * what the next hook sees. The composition root puts the permission check last, so hooks that
 * approve or rewrite a call are judged by it.
 */
export function composeBeforeToolCall(...hooks: (BeforeToolCall | undefined)[]): BeforeToolCall {
  const chain = hooks.filter((hook): hook is BeforeToolCall => hook !== undefined);
  return async (context, signal) => {
    let current = context;
    let changed = false;
    for (const hook of chain) {
      const result = await hook(current, signal);
      if (!result) continue;
      if (result.block) return result;
      if (result.input !== undefined || result.permission !== undefined) {
        changed = true;
        current = {
          ...current,
          ...(result.input !== undefined ? { input: result.input } : {}),
          ...(result.permission ? { permission: result.permission } : {}),
        };
      }
    }
    return changed ? { input: current.input, permission: current.permission } : undefined;
  };
}

/** Runs after-hooks in order, each seeing the result the previous one returned. */
export function composeAfterToolCall(...hooks: (AfterToolCall | undefined)[]): AfterToolCall {
  const chain = hooks.filter((hook): hook is AfterToolCall => hook !== undefined);
  return async (context, signal) => {
    let result = context.result;
    for (const hook of chain) result = (await hook({ ...context, result }, signal)) ?? result;
    return result === context.result ? undefined : result;
  };
}
