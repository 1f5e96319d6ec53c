import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isRepositoryPlugin } from '../config/trust.js';
import { parseLspServers, type LspDeclarationProblem, type LspServerDeclaration } from './declarations.js';

export interface LspSources {
  workspaceRoot: string;
  /** The loaded plugins; each may declare servers in `.lsp.json` or `lspServers` in its plugin.json. */
  plugins: readonly { name: string; root: string }[];
  /** The `lsp.servers` setting (workspace files only when the workspace is trusted). */
  settingsServers?: Record<string, unknown>;
  /**
   * The repository's own servers (a `.lsp.json` at the workspace root, and those of the plugins
   * inside the workspace) are commands a repository asks to run: only a trusted folder's start.
   */
  projectTrusted: boolean;
  /** Beans' built-in plugins, whose servers are Beans' own even when the workspace holds them. */
  builtinPluginsDir?: string;
  /** A trusted repository's server added after it was trusted and not approved yet. */
  skip?: (server: LspServerDeclaration) => boolean;
}

export interface CollectedLspServers {
  /** The servers to run, a later source winning on a name clash. */
  servers: LspServerDeclaration[];
  problems: LspDeclarationProblem[];
  /** Servers the repository declares that did not load because it is not trusted. */
  ignored: LspServerDeclaration[];
}

/** The file a workspace uses for its own servers, beside `.mcp.json`. */
const WORKSPACE_LSP_FILE = '.lsp.json';

/**
 * Every language server this session may start: plugins' (in root order), the `lsp.servers`
 * setting, then the workspace's `.lsp.json`. Reads a few small files and starts nothing.
 */
export function collectLspServers(sources: LspSources): CollectedLspServers {
  const byName = new Map<string, LspServerDeclaration>();
  const problems: LspDeclarationProblem[] = [];
  const ignored: LspServerDeclaration[] = [];
  const take = (servers: LspServerDeclaration[], repository: boolean) => {
    for (const server of servers) {
      if (repository && !sources.projectTrusted) ignored.push(server);
      else if (!(repository && sources.skip?.(server))) byName.set(server.name, server);
    }
  };
  for (const plugin of sources.plugins) {
    const declared = pluginLspServers(plugin);
    problems.push(...declared.problems);
    take(declared.servers, isRepositoryPlugin(plugin.root, sources.workspaceRoot, sources.builtinPluginsDir));
  }
  if (sources.settingsServers) {
    const parsed = parseLspServers(sources.settingsServers, 'settings', 'the lsp.servers setting');
    problems.push(...parsed.problems);
    // Settings files of an untrusted workspace never reach here (config/untrusted-settings.ts), but
    // a trusted one's server added since it was trusted is skipped like the repository's others.
    take(
      parsed.servers.filter((server) => !sources.skip?.(server)),
      false,
    );
  }
  const workspaceFile = path.join(sources.workspaceRoot, WORKSPACE_LSP_FILE);
  const workspace = lspFile(workspaceFile, 'the workspace .lsp.json', { CLAUDE_PROJECT_DIR: sources.workspaceRoot });
  problems.push(...workspace.problems);
  take(workspace.servers, true);
  return { servers: [...byName.values()], problems, ignored };
}

/** A plugin's servers: `.lsp.json` at its root, then `lspServers` in its manifest (inline or a file). */
function pluginLspServers(plugin: { name: string; root: string }): { servers: LspServerDeclaration[]; problems: LspDeclarationProblem[] } {
  const vars = { CLAUDE_PLUGIN_ROOT: plugin.root };
  const origin = `plugin ${plugin.name}`;
  const results = [lspFile(path.join(plugin.root, '.lsp.json'), origin, vars)];
  const manifestFile = path.join(plugin.root, '.claude-plugin', 'plugin.json');
  const manifest = readJson(manifestFile);
  const declared = manifest.ok ? (manifest.value as { lspServers?: unknown } | null)?.lspServers : undefined;
  if (typeof declared === 'string') {
    const file = path.resolve(plugin.root, declared.replace('${CLAUDE_PLUGIN_ROOT}', plugin.root));
    // The same file twice (`"lspServers": "./.lsp.json"`) declares its servers once.
    if (path.resolve(file) !== path.join(plugin.root, '.lsp.json')) results.push(lspFile(file, origin, vars, true));
  } else if (declared !== undefined) results.push(parseLspServers(declared, manifestFile, origin, vars));
  return { servers: results.flatMap((result) => result.servers), problems: results.flatMap((result) => result.problems) };
}

function lspFile(file: string, origin: string, vars: Record<string, string>, mustExist = false) {
  const read = readJson(file);
  if (!read.ok) return { servers: [], problems: read.missing && !mustExist ? [] : [{ file, message: read.message }] };
  return parseLspServers(read.value, file, origin, vars);
}

function readJson(file: string): { ok: true; value: unknown } | { ok: false; missing: boolean; message: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return { ok: false, missing, message: missing ? 'file not found' : String(error) };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, missing: false, message: `not valid JSON: ${(error as Error).message}` };
  }
}
