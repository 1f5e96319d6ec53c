import { readFile } from '../async-fs.js';
import path from 'node:path';
import { localSettingsPath, workspaceSettingsPath, type SettingSource } from '../config/index.js';
import { showUntrusted } from '../config/show-untrusted.js';
import { readApprovedDeclarations, recordApprovedDeclarations } from '../config/trusted-declarations.js';
import { loadWorkspaceHooks, type HookCommand } from '../hooks/index.js';
import { collectMcpServers } from '../mcp/collect-servers.js';
import { parseMcpServers, type McpServerEntry } from '../mcp/mcp-config.js';
import { collectLspServers } from '../lsp/collect.js';
import { commandLineOf, parseLspServers, type LspServerDeclaration } from '../lsp/declarations.js';
import { builtin } from '../node-builtins.js';

// What a repository declares that Beans would run: MCP servers (its `.mcp.json`, its settings'
// `mcpServers`, the servers of the plugins inside it), language servers (its `.lsp.json`, its
// settings' `lsp.servers`, its plugins' `lspServers`) and hooks (its settings', its plugins'). Each
// has an id, a hash of its name and command line, so "trusted" can mean "trusted as it was".

export interface Declaration {
  kind: 'MCP server' | 'LSP server' | 'hook' | 'status line';
  /** The server's name, or the hook's event (and matcher). */
  name: string;
  /** The file that declares it. */
  file: string;
  /** The command line (or URL) it would run, as shown to the user. */
  command: string;
  id: string;
}

export interface DeclarationsInput {
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  plugins: readonly { name: string; root: string }[];
  builtinPluginsDir?: string;
  settingSources?: readonly SettingSource[];
}

const hash = (parts: unknown[]) => builtin('node:crypto').createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

/** The id of a server: its name and everything that decides what runs or where it connects. */
export function mcpServerId(server: Pick<McpServerEntry, 'name' | 'config'>): string {
  return hash(['mcp', server.name, server.config]);
}

/** The id of a language server: its name and the command line and environment it runs with. */
export function lspServerId(server: Pick<LspServerDeclaration, 'name' | 'command' | 'args' | 'env'>): string {
  return hash(['lsp', server.name, server.command, server.args, server.env]);
}

/** The id of a hook: its event, matcher and command. */
export function hookId(hook: Pick<HookCommand, 'event' | 'matcher' | 'command'>): string {
  return hash(['hook', hook.event, hook.matcher ?? '', hook.command]);
}

function commandOf(server: McpServerEntry): string {
  return server.config.transport === 'stdio' ? [server.config.command, ...server.config.args].join(' ') : server.config.url;
}

/** The id of a status line command (the `statusLine` setting). */
function statusLineId(command: string): string {
  return hash(['statusLine', command]);
}

/** Every server, hook and status line command the repository itself declares, whether or not it is trusted. */
export async function repositoryDeclarations(input: DeclarationsInput): Promise<Declaration[]> {
  const collected = collectMcpServers({
    workspaceRoot: input.workspaceRoot,
    cwd: input.workspaceRoot,
    env: input.env,
    pluginRoots: input.plugins.map((plugin) => plugin.root),
    configArguments: [],
    strict: false,
    projectTrusted: false,
    ...(input.builtinPluginsDir ? { builtinPluginsDir: input.builtinPluginsDir } : {}),
  });
  const servers = collected.ignored.flatMap(({ file, servers }) => servers.map((server) => ({ file, server })));
  const sources = new Set(input.settingSources ?? ['user', 'project', 'local']);
  const statusLines: Declaration[] = [];
  for (const [kind, file] of [
    ['project', workspaceSettingsPath(input.workspaceRoot)],
    ['local', localSettingsPath(input.workspaceRoot)],
  ] as const) {
    if (!sources.has(kind)) continue;
    const settings = await readSettings(file);
    servers.push(...settingsServers(settings, file, input.env).map((server) => ({ file, server })));
    const command = (settings as { statusLine?: { command?: unknown } } | undefined)?.statusLine?.command;
    if (typeof command === 'string' && command) statusLines.push({ kind: 'status line', name: 'statusLine', file, command, id: statusLineId(command) });
  }
  const lspServers = collectLspServers({
    workspaceRoot: input.workspaceRoot,
    plugins: input.plugins,
    projectTrusted: false,
    ...(input.builtinPluginsDir ? { builtinPluginsDir: input.builtinPluginsDir } : {}),
  }).ignored;
  for (const [kind, file] of [
    ['project', workspaceSettingsPath(input.workspaceRoot)],
    ['local', localSettingsPath(input.workspaceRoot)],
  ] as const) {
    if (sources.has(kind)) lspServers.push(...(await settingsLspServers(file)));
  }
  const hooks = await loadWorkspaceHooks({
    workspaceRoot: input.workspaceRoot,
    env: input.env,
    settingSources: input.settingSources,
    plugins: input.plugins,
    trusted: false,
    ...(input.builtinPluginsDir ? { builtinPluginsDir: input.builtinPluginsDir } : {}),
  });
  return [
    ...servers.map(({ file, server }): Declaration => ({ kind: 'MCP server', name: server.name, file, command: commandOf(server), id: mcpServerId(server) })),
    ...lspServers.map((server): Declaration => ({
      kind: 'LSP server',
      name: server.name,
      file: server.file,
      command: commandLineOf(server),
      id: lspServerId(server),
    })),
    ...hooks.untrusted.map((hook): Declaration => ({
      kind: 'hook',
      name: hook.matcher ? `${hook.event} ${hook.matcher}` : hook.event,
      file: hook.source.file,
      command: hook.command,
      id: hookId(hook),
    })),
    ...statusLines,
  ];
}

async function readSettings(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function settingsServers(raw: unknown, file: string, env: NodeJS.ProcessEnv): McpServerEntry[] {
  const declared = (raw as { mcpServers?: unknown } | null | undefined)?.mcpServers;
  return declared === undefined ? [] : parseMcpServers(declared, file, env).servers;
}

async function settingsLspServers(file: string): Promise<LspServerDeclaration[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
  const declared = (raw as { lsp?: { servers?: unknown } } | null)?.lsp?.servers;
  return declared === undefined ? [] : parseLspServers(declared, file, 'the lsp.servers setting').servers;
}

/**
 * The declarations of a trusted workspace that were not there when it was trusted and are not
 * approved since. With no record yet (trusted through a parent folder, or before records were
 * kept), today's declarations become the record and nothing is new.
 */
export async function newSinceTrust(input: DeclarationsInput): Promise<Declaration[]> {
  const declarations = await repositoryDeclarations(input);
  const approved = readApprovedDeclarations(input.workspaceRoot, input.env);
  if (!approved) {
    if (declarations.length > 0)
      await recordApprovedDeclarations(
        input.workspaceRoot,
        declarations.map((d) => d.id),
        input.env,
      );
    return [];
  }
  return declarations.filter((declaration) => !approved.has(declaration.id));
}

/** Records what the workspace declares now as what its trust covers (`beans trust`, the chat's answer). */
export async function recordTrustedDeclarations(input: DeclarationsInput): Promise<number> {
  const declarations = await repositoryDeclarations(input);
  await recordApprovedDeclarations(
    input.workspaceRoot,
    declarations.map((d) => d.id),
    input.env,
    { replace: true },
  );
  return declarations.length;
}

/** A declaration for a warning or a question, its parts escaped (the repository chose them). */
export function describeDeclaration(declaration: Declaration, workspaceRoot: string): string {
  return `${declaration.kind} ${showUntrusted(declaration.name)} (${showUntrusted(path.relative(workspaceRoot, declaration.file))}): ${showUntrusted(declaration.command)}`;
}
