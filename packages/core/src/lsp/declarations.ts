// Language server declarations in Claude Code's `lspServers` shape: an object of servers by name,
// each `{command, args?, extensionToLanguage, env?, transport?, initializationOptions?, settings?,
// workspaceFolder?, startupTimeout?, shutdownTimeout?, restartOnCrash?, maxRestarts?}`. Plugins
// declare them in `.claude-plugin/plugin.json` (`lspServers`: the object, or a path to a file) or
// in `.lsp.json` at the plugin root; the `lsp.servers` setting takes the same object.

/** One language server as Beans runs it, its `${CLAUDE_PLUGIN_ROOT}` already put in. */
export interface LspServerDeclaration {
  name: string;
  /** Who declared it, for messages: `plugin typescript-lsp`, `the lsp.servers setting`. */
  origin: string;
  /** The file that declares it. */
  file: string;
  command: string;
  args: string[];
  /** `.ts` -> `typescript`; extensions are lower case with their dot. */
  extensionToLanguage: Record<string, string>;
  env: Record<string, string>;
  initializationOptions?: unknown;
  /** Answered to `workspace/configuration` and sent with `workspace/didChangeConfiguration`. */
  settings?: unknown;
  /** The server's workspace folder, relative to the workspace root (default: the workspace root). */
  workspaceFolder?: string;
  startupTimeoutMs: number;
  shutdownTimeoutMs: number;
  restartOnCrash: boolean;
  maxRestarts: number;
}

export interface LspDeclarationProblem {
  file: string;
  message: string;
}

export interface ParsedLspServers {
  servers: LspServerDeclaration[];
  problems: LspDeclarationProblem[];
}

/** Claude Code gives no defaults in its documentation; these let a cold TypeScript or Python server start. */
const DEFAULT_STARTUP_TIMEOUT_MS = 20_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 2_000;
const DEFAULT_MAX_RESTARTS = 3;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Parses an `lspServers` object. A bad server is a problem naming its file and field; the others
 * still load. `vars` are put into strings (`${CLAUDE_PLUGIN_ROOT}`), as Claude Code does.
 */
export function parseLspServers(raw: unknown, file: string, origin: string, vars: Record<string, string> = {}): ParsedLspServers {
  const servers: LspServerDeclaration[] = [];
  const problems: LspDeclarationProblem[] = [];
  if (!isRecord(raw)) return { servers, problems: [{ file, message: 'lspServers must be an object of servers by name' }] };
  const put = (text: string) => text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => vars[name] ?? whole);
  for (const [name, value] of Object.entries(raw)) {
    const fail = (message: string) => problems.push({ file, message: `LSP server "${name}": ${message}` });
    if (!isRecord(value)) {
      fail('must be an object');
      continue;
    }
    if (typeof value.command !== 'string' || value.command.trim() === '') {
      fail('"command" must be a non-empty string');
      continue;
    }
    if (value.args !== undefined && !(Array.isArray(value.args) && value.args.every((arg) => typeof arg === 'string'))) {
      fail('"args" must be a list of strings');
      continue;
    }
    const mapping = value.extensionToLanguage;
    if (!isRecord(mapping) || Object.keys(mapping).length === 0 || !Object.values(mapping).every((language) => typeof language === 'string')) {
      fail('"extensionToLanguage" must map file extensions to language ids, e.g. {".ts": "typescript"}');
      continue;
    }
    if (value.env !== undefined && !(isRecord(value.env) && Object.values(value.env).every((v) => typeof v === 'string'))) {
      fail('"env" must be an object of strings');
      continue;
    }
    // Claude Code also accepts "socket"; Beans speaks to servers over their standard input and output only.
    if (value.transport !== undefined && value.transport !== 'stdio') {
      fail(`transport ${JSON.stringify(value.transport)} is not supported by Beans (only "stdio")`);
      continue;
    }
    const number = (key: string, fallback: number) =>
      typeof value[key] === 'number' && Number.isFinite(value[key]) && value[key] >= 0 ? value[key] : fallback;
    servers.push({
      name,
      origin,
      file,
      command: put(value.command),
      args: (value.args ?? []).map(put),
      extensionToLanguage: Object.fromEntries(
        Object.entries(mapping as Record<string, string>).map(([extension, language]) => [normalizeExtension(extension), language]),
      ),
      env: Object.fromEntries(Object.entries((value.env as Record<string, string> | undefined) ?? {}).map(([key, text]) => [key, put(text)])),
      ...(value.initializationOptions !== undefined ? { initializationOptions: value.initializationOptions } : {}),
      ...(value.settings !== undefined ? { settings: value.settings } : {}),
      ...(typeof value.workspaceFolder === 'string' ? { workspaceFolder: put(value.workspaceFolder) } : {}),
      startupTimeoutMs: number('startupTimeout', DEFAULT_STARTUP_TIMEOUT_MS),
      shutdownTimeoutMs: number('shutdownTimeout', DEFAULT_SHUTDOWN_TIMEOUT_MS),
      restartOnCrash: value.restartOnCrash !== false,
      maxRestarts: number('maxRestarts', DEFAULT_MAX_RESTARTS),
    });
  }
  return { servers, problems };
}

function normalizeExtension(extension: string): string {
  const lower = extension.trim().toLowerCase();
  return lower.startsWith('.') ? lower : `.${lower}`;
}

/** The command line as shown to the user. */
export function commandLineOf(server: Pick<LspServerDeclaration, 'command' | 'args'>): string {
  return [server.command, ...server.args].join(' ');
}
