import type { AnyTool } from '../tools/tool.js';
import type { ToolCall } from '../llm/types.js';

export type PermissionMode = 'default' | 'auto-edit' | 'yolo' | 'plan';

export type PermissionDecision =
  | { allow: true; /** The input to run instead (an SDK program's canUseTool may rewrite it). */ updatedInput?: unknown }
  | { allow: false; reason: string; /** Stop the run after this denial. */ interrupt?: boolean };

export interface PermissionRequest {
  call: ToolCall;
  tool: AnyTool;
  /** Validated input. */
  input: unknown;
  /** A hook's decision about asking: `allow` skips the prompt (deny rules still apply), `ask` forces it. */
  hint?: 'allow' | 'ask';
  /**
   * Set when a person is asked: the rules an "always" answer adds for the rest of the session
   * (`shell(npm test:*)`, `write_file`); empty when the call can only be approved once.
   */
  alwaysRules?: readonly string[];
}

/** Decides whether a tool call may run; interactive front ends ask the user inside it. */
export type Authorize = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionDecision>;

/** The user's answer to "may this tool call run?" in the interactive UI. */
export interface AskAnswer {
  /** once: this call; always: this tool for the rest of the session; deny: refuse (reason goes to the model). */
  decision: 'once' | 'always' | 'deny';
  reason?: string;
  /** With once: run this input instead. */
  updatedInput?: unknown;
  /** With deny: stop the run. */
  interrupt?: boolean;
}

export type AskUser = (request: PermissionRequest, signal: AbortSignal) => Promise<AskAnswer>;
