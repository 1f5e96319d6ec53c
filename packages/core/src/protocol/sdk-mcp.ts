import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolInfo } from '../mcp/mcp-tools.js';
import type { ControlChannel } from './control-channel.js';

/**
 * An MCP transport to a server that lives inside the SDK program (`createSdkMcpServer`): each
 * JSON-RPC message travels as an `mcp_message` control request, and the program's `mcp_response`
 * comes back as the server's message.
 */
class ControlTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly server: string,
    private readonly channel: ControlChannel,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const isRequest = 'method' in message && 'id' in message;
    const answer = this.channel.request({ subtype: 'mcp_message', server_name: this.server, message });
    if (!isRequest) {
      answer.catch(() => undefined);
      return;
    }
    answer.then(
      (response) => this.onmessage?.(response.mcp_response as JSONRPCMessage),
      (error: Error) => this.onerror?.(error),
    );
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

/** The program's in-process MCP servers as the session's own: tools from the manifests sent with `initialize`, connected on the first call. */
export function sdkMcpServers(
  servers: readonly string[],
  manifests: Record<string, { toolsListResult?: { tools?: McpToolInfo[] } }> | undefined,
  channel: ControlChannel,
): { name: string; tools: McpToolInfo[]; open: () => Transport }[] {
  return servers.map((server) => ({
    name: server,
    tools: manifests?.[server]?.toolsListResult?.tools ?? [],
    open: () => new ControlTransport(server, channel),
  }));
}
