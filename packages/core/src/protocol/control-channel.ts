import { builtin } from '../node-builtins.js';

/** A control request or response of the Claude Agent SDK's subprocess protocol. */
export interface ControlRequest {
  type: 'control_request';
  request_id: string;
  request: { subtype: string; [key: string]: unknown };
}

export interface ControlResponse {
  type: 'control_response';
  response: { subtype: 'success'; request_id: string; response?: Record<string, unknown> } | { subtype: 'error'; request_id: string; error: string };
}

/**
 * Requests Beans sends to the SDK program (`can_use_tool`, `hook_callback`, `mcp_message`) and the
 * answers it writes for requests the program sent. Each request waits for the response with its id;
 * when the input ends, waiting requests fail instead of hanging.
 */
export class ControlChannel {
  private readonly pending = new Map<string, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  private closedReason: string | undefined;

  constructor(private readonly write: (message: ControlRequest | ControlResponse) => void) {}

  request(request: ControlRequest['request'], signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.closedReason) return Promise.reject(new Error(this.closedReason));
    const id = builtin('node:crypto').randomUUID();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        reject(new Error('The request was interrupted.'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.write({ type: 'control_request', request_id: id, request });
    });
  }

  /** Settles the request a response answers; false when it answers none of ours. */
  handleResponse(message: ControlResponse): boolean {
    const response = message.response;
    const waiting = response && this.pending.get(response.request_id);
    if (!waiting) return false;
    this.pending.delete(response.request_id);
    if (response.subtype === 'success') waiting.resolve(response.response ?? {});
    else waiting.reject(new Error(response.error || 'The SDK program answered with an error.'));
    return true;
  }

  respond(requestId: string, response: Record<string, unknown> = {}): void {
    this.write({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  }

  respondError(requestId: string, error: string): void {
    this.write({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } });
  }

  /** True once the program's input ended: nothing sent now could be answered. */
  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** The program stopped reading: every waiting request fails with this reason. */
  close(reason: string): void {
    this.closedReason = reason;
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(new Error(reason));
    }
  }
}
