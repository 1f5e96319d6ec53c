import type { AnyTool } from '../tools/tool.js';
import type { ToolCall } from '../llm/types.js';

export type PermissionMode = 'default' | 'auto-edit' | 'yolo' | 'plan';

export type PermissionDecision = { allow: true } | { allow: false; reason: string };

export interface PermissionRequest {
  call: ToolCall;
  tool: AnyTool;
  /** Validated input. */
  input: unknown;
}

/** Decides whether a tool call may run; interactive front ends ask the user inside it. */
export type Authorize = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionDecision>;

/** The user's answer to "may this tool call run?" in the interactive UI. */
export interface AskAnswer {
  /** once: this call; always: this tool for the rest of the session; deny: refuse (reason goes to the model). */
  decision: 'once' | 'always' | 'deny';
  reason?: string;
}

export type AskUser = (request: PermissionRequest, signal: AbortSignal) => Promise<AskAnswer>;
