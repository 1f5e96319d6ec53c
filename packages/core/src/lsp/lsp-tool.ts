import { ToolInputError } from '../errors.js';
import { errorResult, guarded } from '../tools/result.js';
import type { Tool } from '../tools/tool.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import type { LspManager } from './manager.js';
import { LSP_OPERATIONS, POSITIONAL, runOperation, wordAt, type LspOperation } from './operations.js';

const LSP_TOOL_NAME = 'lsp';

export interface LspToolInput {
  operation: LspOperation;
  file_path: string;
  line?: number;
  character?: number;
  query?: string;
}

// A JSON Schema, not zod: the tool exists only when a server is configured, so nothing is converted
// (or precomputed) for the sessions that do not have it. Kept short: it is part of every request.
const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    operation: { type: 'string', enum: [...LSP_OPERATIONS] },
    file_path: { type: 'string', description: 'File to ask about' },
    line: { type: 'integer', minimum: 1, description: '1-based line' },
    character: { type: 'integer', minimum: 1, description: '1-based column' },
    query: { type: 'string', description: 'workspaceSymbol search text (default: the word at line:character)' },
  },
  required: ['operation', 'file_path'],
  additionalProperties: false,
};

/**
 * The `lsp` tool (Claude Code's `LSP`): code intelligence from the session's language servers.
 * Read-only: it never asks. The file's server starts on the first call if it is not running.
 */
export function createLspTool(manager: LspManager, options: { requestTimeoutMs: number }): Tool<LspToolInput> {
  return {
    name: LSP_TOOL_NAME,
    kind: 'read',
    description: `Ask the language server about code: ${LSP_OPERATIONS.join(', ')}. Positions are 1-based line and character of a symbol in file_path. Answers are file:line:col lines.`,
    inputSchema: INPUT_SCHEMA,
    summarize: (input) => `${input.operation} ${input.file_path}${input.line ? `:${input.line}${input.character ? `:${input.character}` : ''}` : ''}`,
    ruleSubject: (input) => input.file_path,
    async execute(input, ctx) {
      return guarded(ctx.signal, async () => {
        const target = resolveInWorkspace(ctx.workspace, input.file_path);
        if (ctx.readDenied?.(target.relative)) throw new ToolInputError(`${target.relative} is denied by a permission rule.`);
        if (!manager.handles(target.absolute))
          return errorResult(`No language server is configured for ${target.relative}. Configured: ${describeServers(manager)}.`);
        const positional = POSITIONAL.has(input.operation);
        if (positional && (input.line === undefined || input.character === undefined))
          throw new ToolInputError(`${input.operation} needs line and character (1-based) of a symbol in ${target.relative}.`);
        const position = { line: (input.line ?? 1) - 1, character: (input.character ?? 1) - 1 };
        const synced = await manager.sync(target.absolute);
        if (!synced) {
          const status = manager.list().find((server) => server.extensions.some((extension) => target.absolute.toLowerCase().endsWith(extension)));
          return errorResult(status?.problem ?? `The language server for ${target.relative} is not running, or the file cannot be read.`);
        }
        const query = input.query ?? (input.operation === 'workspaceSymbol' ? await wordAt(target.absolute, position) : '');
        if (input.operation === 'workspaceSymbol' && !query) throw new ToolInputError('workspaceSymbol needs a query, or line and character on a word.');
        try {
          const text = await runOperation(
            { operation: input.operation, position, query },
            { served: synced.served, workspaceRoot: ctx.workspace.root, timeoutMs: options.requestTimeoutMs, signal: ctx.signal },
          );
          return { content: text };
        } catch (error) {
          return errorResult(`${input.operation} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
    },
  };
}

function describeServers(manager: LspManager): string {
  return manager
    .list()
    .map((server) => `${server.name} (${server.extensions.join(' ')})`)
    .join(', ');
}
