import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ContentPart, JsonSchema } from '../llm/types.js';
import { defineJsonSchemaTool, type AnyTool, type ToolResult } from '../tools/tool.js';

/** An MCP tool as the model sees it: `mcp__<server>__<tool>`, Claude Code's naming. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  annotations?: { readOnlyHint?: boolean };
}

/**
 * The tools of one connected MCP server as Beans tools: the server's JSON Schema passed through
 * verbatim and validated by it, results kept as text and image parts. MCP tools count as
 * `execute`, so they ask by default, unless the server marks one read-only.
 */
export function mcpTools(server: string, tools: readonly McpToolInfo[], client: () => Promise<Client>): AnyTool[] {
  return tools.map((info) =>
    defineJsonSchemaTool({
      name: mcpToolName(server, info.name),
      description: info.description?.trim() || `The ${info.name} tool of the MCP server ${server}.`,
      kind: 'execute',
      inputSchema: info.inputSchema,
      summarize: (input) => `${server} ${info.name} ${JSON.stringify(input)}`.slice(0, 200),
      ruleSubject: () => undefined,
      async execute(input, context) {
        const connected = await client();
        const result = await connected.callTool({ name: info.name, arguments: input }, undefined, { signal: context.signal });
        return mcpResult(result as McpCallResult);
      },
    }),
  );
}

interface McpCallResult {
  content?: {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
    uri?: string;
    name?: string;
    resource?: { uri?: string; text?: string; mimeType?: string };
  }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** An MCP call result as a tool result: text, images, resource links and structured content kept. */
export function mcpResult(result: McpCallResult): ToolResult {
  const parts: ContentPart[] = [];
  for (const item of result.content ?? []) {
    if (item.type === 'text' && typeof item.text === 'string') parts.push({ type: 'text', text: item.text });
    else if (item.type === 'image' && item.data && item.mimeType) parts.push({ type: 'image', mimeType: item.mimeType, data: item.data });
    else if (item.type === 'resource_link' && item.uri) parts.push({ type: 'text', text: `[resource ${item.name ?? ''} ${item.uri}]`.replace('  ', ' ') });
    else if (item.type === 'resource' && item.resource) parts.push({ type: 'text', text: item.resource.text ?? `[resource ${item.resource.uri ?? ''}]` });
    else if (item.type === 'audio') parts.push({ type: 'text', text: `[audio ${item.mimeType ?? ''}]` });
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  const onlyText = parts.every((part) => part.type === 'text');
  const content = onlyText ? parts.map((part) => (part as { text: string }).text).join('\n') : parts;
  return { content: content === '' ? '(no output)' : content, ...(result.isError ? { isError: true } : {}) };
}
