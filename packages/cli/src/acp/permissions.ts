import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { AskAnswer, AskUser } from '@beans/core';
import { presentToolCall } from './tool-kinds.js';

/** The four answers ACP names; their ids are what the editor sends back. */
const OPTIONS: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Allow always (this session)', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Reject always (this session)', kind: 'reject_always' },
];

export interface EditorAskerOptions {
  sessionId: string;
  root: string;
  request(params: RequestPermissionRequest): Promise<RequestPermissionResponse>;
}

/**
 * The session's permission prompt, answered in the editor (`session/request_permission`). "Allow
 * always" is core's "always": the policy remembers it exactly as chat's answer. "Reject always" has
 * no counterpart in chat, so it is remembered here: the same tool (for a command, the same program)
 * is refused for the rest of the session without asking again. The policy itself (rules, modes,
 * hooks, trust) stays in core; this only carries the question and the answer.
 */
export function editorAsker(options: EditorAskerOptions): AskUser {
  const rejected = new Set<string>();
  return async (request, signal) => {
    const key = rejectionKey(request.tool.name, request.input);
    if (rejected.has(key))
      return {
        decision: 'deny',
        reason: `the user chose to reject ${describeKey(key)} for the rest of this session. Do not retry it; ask them how to proceed.`,
      };
    const presentation = presentToolCall(request.tool.name, (request.input ?? {}) as Record<string, unknown>, options.root);
    const asked = options.request({
      sessionId: options.sessionId,
      toolCall: {
        toolCallId: request.call.id,
        title: presentation.title,
        kind: presentation.kind,
        status: 'pending',
        locations: presentation.locations,
        rawInput: request.input,
        ...(presentation.diff ? { content: presentation.diff } : {}),
      },
      options: OPTIONS,
    });
    const answer = await untilAborted(asked, signal);
    return toAnswer(answer, () => rejected.add(key));
  };
}

function toAnswer(response: RequestPermissionResponse | undefined, rejectAlways: () => void): AskAnswer {
  // Cancelled by the editor (the turn was cancelled) or by our own abort: stop the run.
  if (!response || response.outcome.outcome === 'cancelled') return { decision: 'deny', reason: 'the turn was cancelled.', interrupt: true };
  switch (response.outcome.optionId) {
    case 'allow_once':
      return { decision: 'once' };
    case 'allow_always':
      return { decision: 'always' };
    case 'reject_always':
      rejectAlways();
      return { decision: 'deny' };
    default:
      return { decision: 'deny' };
  }
}

/** A command is remembered by its program (`npm`), any other tool by its name. */
function rejectionKey(tool: string, input: unknown): string {
  const command = tool === 'shell' && typeof (input as { command?: unknown })?.command === 'string' ? (input as { command: string }).command : undefined;
  const program = command?.trim().split(/\s+/)[0];
  return program ? `shell:${program}` : tool;
}

function describeKey(key: string): string {
  return key.startsWith('shell:') ? `\`${key.slice('shell:'.length)}\` commands` : `${key} calls`;
}

/** The editor's answer, or undefined once the turn is cancelled (a pending question must not hold it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(undefined);
      },
    );
  });
}
