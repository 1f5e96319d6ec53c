import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isRepositoryPlugin } from '../config/trust.js';
import { loadMcpConfigArgument, loadMcpConfigFile, mergeMcpConfigs, parseMcpServers, type McpConfigResult, type McpServerEntry } from './mcp-config.js';

export interface McpSources {
  workspaceRoot: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Plugin roots; each may ship `.mcp.json` or `mcpServers` in `.claude-plugin/plugin.json`. */
  pluginRoots: readonly string[];
  /** `--mcp-config` values (files or JSON text), in order. */
  configArguments: readonly string[];
  /** `--strict-mcp-config`: only `configArguments` and `programServers`. */
  strict: boolean;
  /** The `mcpServers` setting, merged over the settings files (workspace files only when trusted). */
  settingsServers?: Record<string, unknown>;
  /** `mcpServers` given by a program (query() / createAgentSession), in Claude Code's shape. */
  programServers?: Record<string, unknown>;
  /** Servers living inside the program (the Claude Agent SDK's createSdkMcpServer), last: they win a name clash. */
  inProcessServers?: readonly McpServerEntry[];
  /**
   * The repository's own servers (its `.mcp.json`, and those of the plugins inside the workspace:
   * `plugins/`, `.beans/plugins`, `.claude/`) are commands a repository asks to run: only a trusted
   * folder's start.
   */
  projectTrusted: boolean;
  /** Beans' built-in plugins, whose servers are Beans' own even when the workspace holds them. */
  builtinPluginsDir?: string;
  /**
   * A trusted repository's server added after it was trusted and not approved yet
   * (runtime/repository-declarations.ts): left out of the repository's and settings' servers.
   */
  skip?: (server: McpServerEntry) => boolean;
}

export interface CollectedMcpServers extends McpConfigResult {
  /** Servers a file of an untrusted project asked for, by name, with the file. */
  ignored: { file: string; names: string[]; servers: McpServerEntry[] }[];
}

/**
 * Every MCP server this run should start, later sources winning on a name clash as in Claude Code:
 * plugins, the `mcpServers` setting, the project's `.mcp.json`, then `--mcp-config`, then a program's own servers.
 */
export function collectMcpServers(sources: McpSources): CollectedMcpServers {
  const results: McpConfigResult[] = [];
  const ignored: CollectedMcpServers['ignored'] = [];
  const approved = (result: McpConfigResult): McpConfigResult =>
    sources.skip ? { ...result, servers: result.servers.filter((server) => !sources.skip!(server)) } : result;
  const ignore = (file: string, result: McpConfigResult) => {
    if (result.servers.length > 0) ignored.push({ file, names: result.servers.map((server) => server.name), servers: result.servers });
  };
  if (!sources.strict) {
    for (const root of sources.pluginRoots) {
      const declared = pluginServers(root, sources.env);
      if (!isRepositoryPlugin(root, sources.workspaceRoot, sources.builtinPluginsDir)) results.push(...declared.map((entry) => entry.result));
      else if (sources.projectTrusted) results.push(...declared.map((entry) => approved(entry.result)));
      else for (const { file, result } of declared) ignore(file, result);
    }
    if (sources.settingsServers) results.push(approved(parseMcpServers(sources.settingsServers, 'the mcpServers setting', sources.env)));
    const projectFile = path.join(sources.workspaceRoot, '.mcp.json');
    const project = loadMcpConfigFile(projectFile, sources.env);
    if (sources.projectTrusted) results.push(approved(project));
    else ignore(projectFile, project);
  }
  for (const argument of sources.configArguments) results.push(loadMcpConfigArgument(argument, sources.cwd, sources.env));
  if (sources.programServers) results.push(parseMcpServers(sources.programServers, 'mcpServers option', sources.env));
  if (sources.inProcessServers?.length) results.push({ servers: [...sources.inProcessServers], problems: [] });
  return { ...mergeMcpConfigs(results), ignored };
}

/** A plugin's servers by the file that declares them. */
function pluginServers(root: string, env: NodeJS.ProcessEnv): { file: string; result: McpConfigResult }[] {
  const vars = { CLAUDE_PLUGIN_ROOT: root };
  const projectFile = path.join(root, '.mcp.json');
  const out = [{ file: projectFile, result: loadMcpConfigFile(projectFile, env, vars) }];
  const manifestFile = path.join(root, '.claude-plugin', 'plugin.json');
  let manifest: { mcpServers?: unknown };
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { mcpServers?: unknown };
  } catch {
    // No manifest, or a broken one the plugin loader already reports.
    return out;
  }
  const declared = manifest.mcpServers;
  // Claude Code allows the servers inline or as a path to a file relative to the plugin root.
  if (typeof declared === 'string') {
    const file = path.resolve(root, declared.replace('${CLAUDE_PLUGIN_ROOT}', root));
    out.push({ file, result: loadMcpConfigFile(file, env, vars) });
  } else if (declared !== undefined) out.push({ file: manifestFile, result: parseMcpServers(declared, manifestFile, env, vars) });
  return out;
}
