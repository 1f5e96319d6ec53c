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
