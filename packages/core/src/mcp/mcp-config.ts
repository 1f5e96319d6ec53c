import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { lazily } from '../lazily.js';
import { PARSE_ONCE } from '../parse-once.js';

/** One MCP server as configured, after `${VAR}` expansion. */
export type McpServerConfig =
  | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { transport: 'http' | 'sse'; url: string; headers: Record<string, string> };

export interface McpServerEntry {
  name: string;
  /** Where it was configured (a file path, `--mcp-config`, `settings`), for messages and listings. */
  source: string;
  config: McpServerConfig;
}

/** A config that could not be used; reported with its source, never fatal. */
interface McpConfigProblem {
  source: string;
  message: string;
}

export interface McpConfigResult {
  servers: McpServerEntry[];
  problems: McpConfigProblem[];
}

// Claude Code's shapes: `type` is optional for stdio servers, "http" or "sse" for remote ones.
const serverSchema = lazily(() => {
  const stringMap = z.record(z.string(), z.string());
  const stdio = z.object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: stringMap.optional(),
    cwd: z.string().optional(),
  });
  const remote = z.object({ type: z.enum(['http', 'sse']), url: z.string().min(1), headers: stringMap.optional() });
  return z.union([stdio, remote]);
});
const fileSchema = lazily(() => z.object({ mcpServers: z.record(z.string(), z.unknown()) }));

/** Server names become part of tool names (`mcp__<server>__<tool>`), so they stay simple. */
const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Reads `{ "<name>": <server> }` (the value of an `mcpServers` key). Each bad server is a problem
 * of its own; the good ones are kept. `vars` adds names like CLAUDE_PLUGIN_ROOT to the expansion.
 */
export function parseMcpServers(raw: unknown, source: string, env: NodeJS.ProcessEnv, vars: Record<string, string> = {}): McpConfigResult {
  const result: McpConfigResult = { servers: [], problems: [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    result.problems.push({ source, message: 'mcpServers must be an object mapping server names to their settings.' });
    return result;
  }
  for (const [name, value] of Object.entries(raw)) {
    if (!SERVER_NAME.test(name)) {
      result.problems.push({ source, message: `MCP server name "${name}" may hold only letters, digits, "_" and "-".` });
      continue;
    }
    const parsed = serverSchema().safeParse(value, PARSE_ONCE);
    if (!parsed.success) {
      result.problems.push({ source, message: `MCP server "${name}" needs either "command" (stdio) or "type": "http"|"sse" with "url".` });
      continue;
    }
    try {
      const expand = (text: string) => expandVariables(text, env, vars);
      const server = parsed.data;
      const config: McpServerConfig =
        'command' in server
          ? {
              transport: 'stdio',
              command: expand(server.command),
              args: (server.args ?? []).map(expand),
              env: mapValues(server.env ?? {}, expand),
              ...(server.cwd ? { cwd: expand(server.cwd) } : {}),
            }
          : { transport: server.type, url: expand(server.url), headers: mapValues(server.headers ?? {}, expand) };
      result.servers.push({ name, source, config });
    } catch (error) {
      result.problems.push({ source, message: `MCP server "${name}": ${(error as Error).message}` });
    }
  }
  return result;
}

/** A `.mcp.json`-shaped file; a missing file is simply no servers, a malformed one is a problem. */
export function loadMcpConfigFile(file: string, env: NodeJS.ProcessEnv, vars: Record<string, string> = {}): McpConfigResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], problems: [] };
    return { servers: [], problems: [{ source: file, message: `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).` }] };
  }
  return parseMcpConfigText(text, file, env, vars);
}

/** `--mcp-config`: a file path or the JSON itself, as Claude Code accepts. */
export function loadMcpConfigArgument(argument: string, cwd: string, env: NodeJS.ProcessEnv): McpConfigResult {
  if (argument.trimStart().startsWith('{')) return parseMcpConfigText(argument, '--mcp-config', env, {});
  const file = path.resolve(cwd, argument);
  const result = loadMcpConfigFile(file, env);
  if (result.servers.length === 0 && result.problems.length === 0) {
    try {
      readFileSync(file);
    } catch {
      return { servers: [], problems: [{ source: file, message: 'the --mcp-config file does not exist.' }] };
    }
  }
  return result;
}

function parseMcpConfigText(text: string, source: string, env: NodeJS.ProcessEnv, vars: Record<string, string>): McpConfigResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { servers: [], problems: [{ source, message: `not valid JSON (${(error as Error).message}).` }] };
  }
  const parsed = fileSchema().safeParse(json, PARSE_ONCE);
  if (!parsed.success) return { servers: [], problems: [{ source, message: 'expected an object with an "mcpServers" key.' }] };
  return parseMcpServers(parsed.data.mcpServers, source, env, vars);
}

/**
 * Merges results in order; a later server of the same name replaces an earlier one (Claude Code's
 * precedence: pass the broadest scope first).
 */
export function mergeMcpConfigs(results: readonly McpConfigResult[]): McpConfigResult {
  const servers = new Map<string, McpServerEntry>();
  const problems: McpConfigProblem[] = [];
  for (const result of results) {
    for (const server of result.servers) servers.set(server.name, server);
    problems.push(...result.problems);
  }
  return { servers: [...servers.values()], problems };
}

/** `${VAR}` and `${VAR:-default}`; a variable that is unset and has no default is an error. */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, vars: Record<string, string> = {}): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => {
    const value = vars[name] ?? env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    if (value !== undefined) return value;
    throw new Error(`the environment variable ${name} is not set (set it, or write \${${name}:-default}).`);
  });
}

function mapValues(record: Record<string, string>, map: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}
