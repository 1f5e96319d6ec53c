import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const require = createRequire(import.meta.url);
const sdkServer = require.resolve('@modelcontextprotocol/sdk/server/index.js');
const sdkStdio = require.resolve('@modelcontextprotocol/sdk/server/stdio.js');
const sdkTypes = require.resolve('@modelcontextprotocol/sdk/types.js');

const VERBS = ['list', 'get', 'create', 'update', 'delete', 'archive', 'assign', 'comment_on', 'search', 'export'];
const NOUNS = [
  'issues',
  'projects',
  'users',
  'teams',
  'labels',
  'milestones',
  'sprints',
  'boards',
  'pages',
  'alerts',
  'dashboards',
  'reports',
  'widgets',
  'releases',
  'builds',
];

/**
 * A real stdio MCP server (the official SDK) offering `count` tools with realistic descriptions and
 * schemas (about 375 bytes each as the model is given them); the first two are `create_invoice` and
 * `refund_invoice`, whose calls answer with what they were given. Returns the script's path.
 */
export function writeManyToolsServer(dir: string, count: number): string {
  const tools: { name: string; description: string; inputSchema: unknown }[] = [
    tool('create_invoice', 'Create an invoice for a customer in the billing system and return its number.', {
      customer: 'The customer id or name',
      amount: 'The amount in cents',
    }),
    tool('refund_invoice', 'Refund a paid invoice, in whole or in part, and return the refund id.', {
      invoice: 'The invoice number',
      amount: 'The amount to refund in cents',
    }),
  ];
  for (let i = 0; tools.length < count; i++) {
    const verb = VERBS[i % VERBS.length]!;
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
    const suffix = i >= VERBS.length * NOUNS.length ? `_${Math.floor(i / (VERBS.length * NOUNS.length))}` : '';
    tools.push(
      tool(`${verb}_${noun}${suffix}`, `${verb.replace('_', ' ')} ${noun} in the project tracker; linked payments show their invoice number.`, {
        project: 'The project key, e.g. ENG',
        query: 'Free text to filter by',
      }),
    );
  }
  const file = path.join(dir, `many-tools-${count}.cjs`);
  writeFileSync(
    file,
    `const { Server } = require(${JSON.stringify(sdkServer)});
const { StdioServerTransport } = require(${JSON.stringify(sdkStdio)});
const { ListToolsRequestSchema, CallToolRequestSchema } = require(${JSON.stringify(sdkTypes)});
const tools = ${JSON.stringify(tools.slice(0, count))};
const server = new Server({ name: 'many', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: 'Billing and project tracking for ACME.\\nUse create_invoice for new charges.' });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: request.params.name + ' done with ' + JSON.stringify(request.params.arguments) }] }));
server.connect(new StdioServerTransport());
`,
  );
  return file;
}

function tool(name: string, description: string, fields: Record<string, string>) {
  const properties = Object.fromEntries(Object.entries(fields).map(([key, text]) => [key, { type: 'string', description: text }]));
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: { ...properties, limit: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many results' } },
      required: Object.keys(fields).slice(0, 1),
    },
  };
}
