import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ContentPart } from '../llm/types.js';
import { ToolInputError } from '../errors.js';
import { defineJsonSchemaTool, type AnyTool, type ToolResult } from '../tools/tool.js';

/** A connected server that offers resources. */
export interface ResourceServer {
  name: string;
  client(): Promise<Client>;
}

/**
 * `mcp__list_resources` and `mcp__read_resource`, Claude Code's two resource tools. They only read
 * what a configured server chooses to offer, so they run without asking, like read_file.
 */
export function mcpResourceTools(servers: () => ResourceServer[]): AnyTool[] {
  const find = (name: unknown): ResourceServer => {
    const server = servers().find((candidate) => candidate.name === name);
    if (!server)
      throw new ToolInputError(
        `No MCP server named ${String(name)} offers resources. Servers with resources: ${
          servers()
            .map((s) => s.name)
            .join(', ') || 'none'
        }.`,
      );
    return server;
  };
  const list = defineJsonSchemaTool({
    name: 'mcp__list_resources',
    kind: 'read',
    description: 'List the resources MCP servers offer (uri, name, description, mimeType). Give server to list one server only.',
    inputSchema: { type: 'object', properties: { server: { type: 'string', description: 'Only this server' } } },
    summarize: (input) => (typeof input.server === 'string' ? input.server : 'all servers'),
    ruleSubject: () => undefined,
    async execute(input, context) {
      const chosen = input.server === undefined ? servers() : [find(input.server)];
      const lines: string[] = [];
      for (const server of chosen) {
        const client = await server.client();
        const { resources } = await client.listResources(undefined, { signal: context.signal });
        for (const resource of resources) {
          lines.push(
            JSON.stringify({
              server: server.name,
              uri: resource.uri,
              name: resource.name,
              ...(resource.description ? { description: resource.description } : {}),
              ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
            }),
          );
        }
      }
      return { content: lines.length > 0 ? lines.join('\n') : 'No resources.' };
    },
  });
  const read = defineJsonSchemaTool({
    name: 'mcp__read_resource',
    kind: 'read',
    description: 'Read one resource of an MCP server by its uri (see mcp__list_resources).',
    inputSchema: { type: 'object', properties: { server: { type: 'string' }, uri: { type: 'string' } }, required: ['server', 'uri'] },
    summarize: (input) => `${String(input.server)} ${String(input.uri)}`,
    ruleSubject: () => undefined,
    async execute(input, context) {
      const client = await find(input.server).client();
      const result = await client.readResource({ uri: String(input.uri) }, { signal: context.signal });
      return resourceResult(result.contents);
    },
  });
  return [list, read];
}

interface ResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

function resourceResult(contents: ResourceContent[]): ToolResult {
  const parts: ContentPart[] = contents.map((item) => {
    if (typeof item.text === 'string') return { type: 'text', text: item.text };
    if (item.blob && item.mimeType?.startsWith('image/')) return { type: 'image', mimeType: item.mimeType, data: item.blob };
    const bytes = item.blob ? Buffer.from(item.blob, 'base64').length : 0;
    return { type: 'text', text: `[binary resource ${item.uri}, ${item.mimeType ?? 'unknown type'}, ${bytes} bytes]` };
  });
  if (parts.every((part) => part.type === 'text')) return { content: parts.map((part) => (part as { text: string }).text).join('\n') || '(empty resource)' };
  return { content: parts };
}
