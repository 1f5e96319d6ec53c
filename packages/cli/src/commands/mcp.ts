import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  builtinPluginsDir,
  collectMcpServers,
  decideWorkspaceTrust,
  mcpToolsWouldDefer,
  programEnvironment,
  localSettingsPath,
  showUntrusted,
  userSettingsPath,
  UsageError,
  withFileLock,
  type McpServerStatus,
} from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/**
 * `beans mcp list [--json]`: connects to every configured server (as a session would) and prints
 * each one's status and tools. A project's `.mcp.json` in an untrusted folder is listed as disabled.
 */
export async function mcpList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  // Core's trust decision, as a session's: a server the folder declared after it was trusted does not start until approved.
  const trust = await decideWorkspaceTrust({ workspaceRoot: base.workspace.root, env: base.env, plugins: catalog.plugins, trustFlag: options.trust });
  const collected = collectMcpServers({
    workspaceRoot: base.workspace.root,
    cwd: base.workspace.cwd,
    env: base.env,
    pluginRoots: catalog.plugins.map((plugin) => plugin.root),
    configArguments: options.mcpConfig ?? [],
    strict: options.strictMcpConfig ?? false,
    ...(base.config.values.mcpServers ? { settingsServers: base.config.values.mcpServers } : {}),
    projectTrusted: trust.trusted,
    builtinPluginsDir: builtinPluginsDir(),
    skip: trust.skipServer,
  });
  let statuses: McpServerStatus[] = [];
  if (collected.servers.length > 0) {
    const { connectMcpServers } = await import('@beans/core/mcp-servers');
    const timeoutMs = base.config.values.mcp.timeoutMs;
    // Started as a session starts them: without any configured provider's key.
    const set = await connectMcpServers(collected.servers, { cwd: base.workspace.cwd, env: programEnvironment(base), ...(timeoutMs ? { timeoutMs } : {}) });
    statuses = set.statuses();
    // A new session offers them by name only, and loads none until the model asks with tool_search.
    if (mcpToolsWouldDefer(base, set.tools()))
      statuses = statuses.map((status) => (status.tools.length > 0 ? { ...status, deferred: { loaded: [] } } : status));
    await set.close();
  }
  const transportOf = (name: string) => (readServers(path.join(base.workspace.root, '.mcp.json'))[name]?.type === 'http' ? 'http' : 'stdio');
  const disabled = collected.ignored.flatMap((skipped) =>
    skipped.names.map((name): McpServerStatus => ({
      name,
      transport: transportOf(name),
      status: 'disabled',
      tools: [],
      error: `${showUntrusted(skipped.file)} is in a folder that is not trusted.`,
    })),
  );
  const unapproved = trust.unapproved
    .filter((d) => d.kind === 'MCP server')
    .map((d): McpServerStatus => ({
      name: d.name,
      transport: /^https?:/.test(d.command) ? 'http' : 'stdio',
      status: 'disabled',
      tools: [],
      error: `${showUntrusted(d.file)} added it after this folder was trusted; \`beans trust\` approves it (the chat asks).`,
    }));
  const servers = [...statuses, ...disabled, ...unapproved];
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ servers, problems: collected.problems })}\n`);
    return 0;
  }
  const lines = servers.map((server) => {
    const head = `${server.name}  ${server.transport}  ${server.status}`;
    if (server.error) return `${head}\n  ${server.error}`;
    const about = server.description ? `\n  ${server.description}` : '';
    const deferred = server.deferred ? ' (deferred: offered by name, loaded with tool_search)' : '';
    return `${head}${about}\n  tools${deferred}: ${server.tools.join(', ') || '(none)'}`;
  });
  if (servers.length === 0) lines.push('No MCP servers configured. Add one with: beans mcp add <name> <command> [args...]');
  for (const problem of collected.problems) lines.push(`problem: ${problem.source}: ${problem.message}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Where `add` writes and `remove` looks: the project's `.mcp.json`, or a settings file's `mcpServers`. */
export type McpScope = 'project' | 'local' | 'user';

export interface McpAddOptions {
  transport?: 'stdio' | 'http' | 'sse';
  scope?: McpScope;
  env?: string[];
  header?: string[];
}

/** `beans mcp add <name> <command> [args...]` or `--transport http|sse <name> <url>`: writes the scope's file (the project's `.mcp.json` by default). */
export async function mcpAdd(options: CliOptions, name: string, target: string, args: string[], local: McpAddOptions): Promise<number> {
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new UsageError(`MCP server name "${name}" may hold only letters, digits, "_" and "-".`);
  const transport = local.transport ?? 'stdio';
  let server: Record<string, unknown>;
  if (transport === 'stdio') {
    server = { command: target, ...(args.length > 0 ? { args } : {}), ...(local.env?.length ? { env: pairs(local.env, '=', '--env KEY=VALUE') } : {}) };
  } else {
    if (!/^https?:\/\//.test(target)) throw new UsageError(`--transport ${transport} needs a URL such as http://127.0.0.1:3000/mcp, not "${target}".`);
    server = { type: transport, url: target, ...(local.header?.length ? { headers: pairs(local.header, ':', '--header "Name: value"') } : {}) };
  }
  const base = await loadBase(options);
  const file = scopeFile(local.scope ?? 'project', base.workspace.root, base.env);
  let replaced = false;
  await updateServers(file, (servers) => {
    replaced = name in servers;
    servers[name] = server;
  });
  process.stdout.write(`${replaced ? 'Replaced' : 'Added'} MCP server ${name} in ${file}.\n`);
  return 0;
}

/** `beans mcp remove <name> [--scope]`: removes a server from the scope's file, or from the first that has it. */
export async function mcpRemove(options: CliOptions, name: string, local: { scope?: McpScope } = {}): Promise<number> {
  const base = await loadBase(options);
  const scopes: McpScope[] = local.scope ? [local.scope] : ['project', 'local', 'user'];
  const files = scopes.map((scope) => scopeFile(scope, base.workspace.root, base.env));
  const file = files.find((candidate) => name in readServers(candidate));
  if (!file) throw new UsageError(`No MCP server named ${name} in ${files.join(' or ')}. See them with: beans mcp list`);
  await updateServers(file, (servers) => delete servers[name]);
  process.stdout.write(`Removed MCP server ${name} from ${file}.\n`);
  return 0;
}

function scopeFile(scope: McpScope, workspaceRoot: string, env: NodeJS.ProcessEnv): string {
  if (scope === 'user') return userSettingsPath(env);
  if (scope === 'local') return localSettingsPath(workspaceRoot);
  return path.join(workspaceRoot, '.mcp.json');
}

function readServers(file: string): Record<string, { type?: string } & Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as { mcpServers?: Record<string, { type?: string }> };
    return { ...(parsed.mcpServers ?? {}) };
  } catch {
    throw new UsageError(`${file} is not valid JSON; fix or delete it first.`);
  }
}

/** Changes the file's servers under a lock every Beans process takes, keeping its other keys. */
async function updateServers(file: string, change: (servers: Record<string, unknown>) => void): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await withFileLock(file, async () => {
    const servers = readServers(file);
    change(servers);
    let rest: Record<string, unknown> = {};
    try {
      rest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // A new file.
    }
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ ...rest, mcpServers: servers }, null, 2)}\n`);
    await rename(temporary, file);
  });
}

function pairs(items: string[], separator: string, form: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) throw new UsageError(`"${item}" is not of the form ${form}.`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}
