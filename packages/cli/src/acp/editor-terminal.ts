import type {
  ClientCapabilities,
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import type { EditorTerminal } from '@beans/core';

export interface EditorTerminalRequests {
  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  output(params: TerminalOutputRequest): Promise<TerminalOutputResponse>;
  waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  kill(params: KillTerminalRequest): Promise<unknown>;
  release(params: ReleaseTerminalRequest): Promise<unknown>;
}

/**
 * The editor's terminals as core's EditorTerminal, when the client offered them (`terminal: true`):
 * a foreground command is `bash -c <command>` in a terminal the editor runs and shows inside the tool
 * call (`show`), waited for, read, and released; the timeout and a cancelled turn kill it there.
 * Undefined when the client offers no terminals: commands then run in Beans' own process tree.
 */
export function editorTerminal(
  capabilities: ClientCapabilities,
  sessionId: () => string,
  requests: EditorTerminalRequests,
  show: (callId: string, terminalId: string) => void,
): EditorTerminal | undefined {
  if (capabilities.terminal !== true) return undefined;
  return {
    async run(request) {
      const session = sessionId();
      const { terminalId } = await requests.create({
        sessionId: session,
        command: 'bash',
        args: ['-c', request.command],
        cwd: request.cwd,
        env: Object.entries(request.env).map(([name, value]) => ({ name, value })),
        outputByteLimit: request.outputByteLimit,
      });
      if (request.callId) show(request.callId, terminalId);
      let timedOut = false;
      const kill = () => void requests.kill({ sessionId: session, terminalId }).catch(() => undefined);
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, request.timeoutMs);
      request.signal.addEventListener('abort', kill, { once: true });
      try {
        const exit = await requests.waitForExit({ sessionId: session, terminalId });
        const output = await requests.output({ sessionId: session, terminalId });
        return { output: output.output, truncated: output.truncated, exitCode: exit.exitCode ?? null, exitSignal: exit.signal ?? null, timedOut };
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener('abort', kill);
        // Released once read: the editor keeps showing a terminal embedded in a tool call.
        await requests.release({ sessionId: session, terminalId }).catch(() => undefined);
      }
    },
  };
}
