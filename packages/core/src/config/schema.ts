import * as z from 'zod';
import { DEFAULT_OLLAMA_HOST } from '../llm/ollama.js';
import { guardrailsSchema, type GuardrailsSettings } from '../guardrails/schema.js';
import { hooksSchema, type HooksSettings } from '../hooks/schema.js';
import { BUILTIN_PROVIDERS } from '../llm/providers.js';
import { lazily } from '../lazily.js';
import type { PermissionMode } from '../permissions/types.js';

// Why zod rather than a hand-written checker: @beans/core loads zod for tool schemas anyway. The
// schema is built on first use: building it at import cost ~4.5 ms of every start, also for runs
// with no settings file to check.
//
// Each leaf's `.describe()` text is what a user is told was expected, so keep it a noun phrase.

const name = (what: string) => z.string().min(1).describe(what);
const list = (what: string) => z.array(z.string().describe('a string')).describe(what);

// Settings a built-in provider reads besides its endpoint.
const PROVIDER_OPTIONS: Record<string, () => Record<string, z.ZodType>> = {
  // Sends the session id as `prompt_cache_key` (default: on for api.openai.com only).
  // images: false for a model that cannot see pictures (each becomes a line saying so).
  openai: () => ({ promptCacheKey: z.boolean().describe('true or false'), images: z.boolean().describe('true or false') }),
  // How long Ollama keeps the model, and so its prompt cache, loaded: "30m", "1h", or seconds (-1: forever).
  // images: whether the model sees pictures (default: what /api/show's capabilities say).
  ollama: () => ({
    keepAlive: z
      .string()
      .regex(/^-?\d+(\.\d+)?(ms|s|m|h)?$/)
      .describe('a duration such as "30m" or "1h", or seconds such as "3600" ("-1": keep it loaded)'),
    images: z.boolean().describe('true or false'),
  }),
};

export const PERMISSION_MODES = ['default', 'auto-edit', 'yolo', 'plan'] as const satisfies readonly PermissionMode[];

// One OpenAI-compatible server added by settings: `"providers": {"lmstudio": {...}}`.
const customProviderSchema = lazily(() =>
  z
    .object({
      type: z.literal('openai').describe('"openai" (the only protocol custom endpoints speak)'),
      baseUrl: z.url().describe('an endpoint URL such as "http://localhost:1234/v1"'),
      apiKeyEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .describe('the name of the environment variable holding the key'),
      models: list('a list of model names'),
      promptCacheKey: z.boolean().describe('true or false'),
      images: z.boolean().describe('true or false'),
    })
    .partial({ apiKeyEnv: true, models: true, promptCacheKey: true, images: true })
    .strict()
    .describe('an object with "type": "openai", "baseUrl", and optionally "apiKeyEnv", "models", "promptCacheKey" and "images"'),
);

/** "a Gemini model name", "an Ollama model name"; "a model file or name for the local model". */
function modelNameOf(provider: string): string {
  if (provider.startsWith('the ')) return `a model file or name for ${provider}`;
  return `${/^[AEIOU]/.test(provider) ? 'an' : 'a'} ${provider} model name`;
}

const builtinIds = new Set(BUILTIN_PROVIDERS.map((p) => p.id));

/**
 * Each top-level key's schema, built on first use: a flag or a variable (`OLLAMA_HOST` sets
 * `ollama.host`) is checked against its own key without building the other ~270 schema objects.
 */
const sections = {
  provider: lazily(() => name('a provider name such as "gemini", "anthropic", "openai", "ollama", or one of the "providers" setting')),
  model: lazily(() => name('a model name')),
  models: lazily(() =>
    z
      .object(Object.fromEntries(BUILTIN_PROVIDERS.map((p) => [p.id, name(modelNameOf(p.hints.name))])))
      .partial()
      .describe('an object with a model per provider'),
  ),
  // `<id>.<endpoint>`: `ollama.host`, `gemini.baseUrl`, `openai.baseUrl`, `anthropic.baseUrl`, and
  // the provider's own options (PROVIDER_OPTIONS).
  ...Object.fromEntries(
    BUILTIN_PROVIDERS.filter((p) => p.endpoint).map((p) => [
      p.id,
      lazily(() =>
        z
          .object({ [p.endpoint!.name]: name(p.endpoint!.describe), ...(PROVIDER_OPTIONS[p.id]?.() ?? {}) })
          .partial()
          .describe('an object'),
      ),
    ]),
  ),
  // The embedded llama.cpp provider (issue 45).
  local: lazily(() =>
    z
      .object({
        gpu: z.enum(['auto', 'off']).describe('"auto" (a GPU when there is one) or "off" (CPU only)'),
        strictTools: z.boolean().describe('true or false (true: tool calls through a JSON grammar even when the chat template has its own format)'),
        toolChoice: z.enum(['auto', 'required']).describe('"auto" or "required" (the first reply after a user message must call a tool)'),
        contextSize: z.number().int().min(256).describe('a number of tokens, at least 256'),
        threads: z.number().int().min(1).describe('a number of CPU threads'),
        maxTokens: z.number().int().min(1).describe('a number of tokens'),
        seed: z.number().int().min(0).describe('a whole number'),
      })
      .partial()
      .describe('an object'),
  ),
  providers: lazily(() =>
    z
      .record(
        z
          .string()
          .regex(/^[a-z0-9][a-z0-9_-]*$/)
          .refine((id) => !builtinIds.has(id), 'a name that is not a built-in provider'),
        customProviderSchema(),
      )
      .describe('an object of OpenAI-compatible endpoints by provider name (lower-case letters, digits, - and _, not a built-in name)'),
  ),
  permissions: lazily(() =>
    z
      .object({
        mode: z.enum(PERMISSION_MODES).describe(`one of ${PERMISSION_MODES.map((m) => `"${m}"`).join(', ')}`),
        allow: list('a list of tool names or rules like "shell(git *)"'),
        deny: list('a list of tool names or rules like "shell(rm *)"'),
        readOnlyCommands: z.boolean().describe('true or false (false: read-only commands such as `ls` and `git status` ask like others)'),
      })
      .partial()
      .describe('an object'),
  ),
  maxTurns: lazily(() => z.int().positive().describe('a positive whole number')),
  maxBudgetUsd: lazily(() => z.number().positive().describe('a positive number of US dollars')),
  // A string, so `beans config set thinking 8000` and the settings keys' one kind per key both work.
  thinking: lazily(() =>
    z
      .string()
      .regex(/^(off|low|medium|high|\d+)$/)
      .describe('off, low, medium, high, or a token budget such as "8000"'),
  ),
  plugins: lazily(() =>
    z
      .object({
        dirs: list('a list of folder paths'),
        disabled: list('a list of plugin names'),
      })
      .partial()
      .describe('an object'),
  ),
  sessions: lazily(() =>
    z
      .object({
        // The root of the per-workspace session folders (default `<state dir>/sessions`).
        dir: name('a folder path'),
      })
      .partial()
      .describe('an object'),
  ),
  ui: lazily(() =>
    z
      .object({
        theme: z.enum(['dark', 'light', 'high-contrast']).describe('"dark", "light" or "high-contrast"'),
        markdown: z.boolean().describe('true or false'),
        showCost: z.boolean().describe('true or false'),
      })
      .partial()
      .describe('an object'),
  ),
  shell: lazily(() =>
    z
      .object({
        // Background commands (shell's run_in_background) one session may run at once.
        maxBackgroundTasks: z.int().positive().describe('a number of tasks'),
      })
      .partial()
      .describe('an object'),
  ),
  tools: lazily(() =>
    z
      .object({
        env: z
          .object({
            // Variables holding keys are removed from commands' environment; these are kept anyway.
            passThrough: list('a list of environment variable names'),
            // Removed from commands' environment besides the provider keys.
            strip: list('a list of environment variable names'),
          })
          .partial()
          .describe('an object'),
        // MCP tools offered by name only, loaded with tool_search (docs/mcp.md).
        defer: z.enum(['auto', 'always', 'never']).describe('"auto", "always" or "never"'),
        deferThreshold: z.int().nonnegative().describe('a number of tokens'),
      })
      .partial()
      .describe('an object'),
  ),
  // Claude Code's custom status line: a command given the session as JSON on stdin; its first line is drawn in the chat's footer.
  statusLine: lazily(() =>
    z
      .object({
        type: z.enum(['command']).describe('"command"'),
        command: z.string().min(1).describe('a shell command line'),
        padding: z.int().nonnegative().describe('a number of columns'),
      })
      .partial({ padding: true })
      .strict()
      .describe('an object {"type": "command", "command": "...", "padding"?: N}'),
  ),
  // Retries of a provider's 429/5xx/overloaded answers (docs/chat.md, "Riding out an outage").
  retry: lazily(() =>
    z
      .object({
        maxAttempts: z.int().positive().describe('a number of requests (the first included)'),
        baseDelayMs: z.int().nonnegative().describe('a number of milliseconds'),
        maxDelayMs: z.int().nonnegative().describe('a number of milliseconds'),
      })
      .partial()
      .describe('an object'),
  ),
  compaction: lazily(() =>
    z
      .object({
        enabled: z.boolean().describe('true or false'),
        threshold: z.number().gt(0).max(1).describe('a fraction of the context window between 0 and 1, e.g. 0.8'),
        contextWindow: z.int().positive().describe('a number of tokens'),
      })
      .partial()
      .describe('an object'),
  ),
  checkpoints: lazily(() =>
    z
      .object({
        // File checkpoints at every user message, for /rewind and `beans rewind`.
        enabled: z.boolean().describe('true or false'),
        // Kept content per session before the oldest checkpoints are dropped.
        maxBytes: z.int().positive().describe('a number of bytes'),
        // A file larger than this is noted as not restorable instead of kept.
        maxFileBytes: z.int().positive().describe('a number of bytes'),
      })
      .partial()
      .describe('an object'),
  ),
  loopDetection: lazily(() =>
    z
      .object({
        enabled: z.boolean().describe('true or false'),
        maxRepeats: z.int().min(2).describe('a whole number of at least 2'),
      })
      .partial()
      .describe('an object'),
  ),
  input: lazily(() =>
    z
      .object({
        // Piped stdin above this is refused (exit 2) rather than sent whole to the model.
        maxStdinBytes: z.int().positive().describe('a number of bytes'),
      })
      .partial()
      .describe('an object'),
  ),
  webFetch: lazily(() =>
    z
      .object({
        // Off by default so a page cannot make Beans probe this machine or its network.
        allowPrivateNetwork: z.boolean().describe('true or false'),
        timeoutMs: z.int().positive().describe('a number of milliseconds'),
        maxBytes: z.int().positive().describe('a number of bytes'),
      })
      .partial()
      .describe('an object'),
  ),
  telemetry: lazily(() =>
    z
      .object({
        // OpenTelemetry export; where to is the standard OTEL_* variables' business.
        enabled: z.boolean().describe('true or false'),
        logPrompts: z.boolean().describe('true or false'),
        includeRepository: z.boolean().describe('true or false'),
        organization: z.string().describe('a string'),
      })
      .partial()
      .describe('an object'),
  ),
  agents: lazily(() =>
    z
      .object({
        // Subagents (the task tool) running at once, and the turn limit of each.
        maxParallel: z.int().positive().describe('a positive whole number'),
        maxTurns: z.int().positive().describe('a positive whole number'),
      })
      .partial()
      .describe('an object'),
  ),
  sandbox: lazily(() =>
    z
      .object({
        // Shell commands run in an OS sandbox: writes only in the workspace and temp, no network but these hosts.
        enabled: z.boolean().describe('true or false'),
        allowedHosts: list('a list of host names or "host:port" entries such as "registry.npmjs.org"'),
        // Claude Code's names: Unix sockets commands may reach (none by default), or all of them (no filter).
        network: z
          .object({
            allowUnixSockets: list('a list of Unix socket paths such as "~/.ssh/agent.sock"'),
            allowAllUnixSockets: z.boolean().describe('true or false'),
          })
          .partial()
          .describe('an object'),
      })
      .partial()
      .describe('an object'),
  ),
  // WORKFLOW.md runs: in this process with checkpoints under .beans/runs (local), or on DBOS over
  // PostgreSQL with workers on any machine (dbos), within these limits on the model calls.
  workflows: lazily(() =>
    z
      .object({
        backend: z.enum(['local', 'dbos']).describe('"local" or "dbos"'),
        databaseUrl: z
          .string()
          .regex(/^postgres(ql)?:\/\//, 'a postgresql:// URL')
          .describe('a PostgreSQL URL such as "postgresql://user:password@host:5432/beans"'),
        maxConcurrentCalls: z.int().positive().describe('a positive whole number'),
        workerConcurrency: z.int().positive().describe('a positive whole number'),
        rateLimit: z
          .object({ calls: z.int().positive().describe('a positive whole number'), periodMs: z.int().positive().describe('a number of milliseconds') })
          .partial()
          .describe('an object with "calls" and "periodMs"'),
      })
      .partial()
      .describe('an object'),
  ),
  // Background sessions on runners (`beans runner`): what a queued session may choose on this
  // runner (its own provider and model, modes but yolo, by default), how many run at once, whether
  // the worktrees' own settings apply, when a silent runner counts as dead, and the drain's grace.
  runners: lazily(() =>
    z
      .object({
        providers: list('a list of provider names such as "anthropic"'),
        models: list('a list of model names or globs such as "claude-*"'),
        permissionModes: z.array(z.enum(PERMISSION_MODES)).describe('a list of "default", "auto-edit", "yolo", "plan"'),
        maxTurns: z.int().positive().describe('a positive whole number'),
        concurrency: z.int().positive().describe('a positive whole number'),
        maxSessionsPerProvider: z.int().positive().describe('a positive whole number'),
        trustWorktrees: z.boolean().describe('true or false'),
        sandbox: z.boolean().describe('true or false'),
        recoveryAfterMs: z.int().min(2000).describe('a number of milliseconds (at least 2000)'),
        drainGraceMs: z.int().nonnegative().describe('a number of milliseconds'),
        workdir: z.string().min(1).describe('a folder'),
      })
      .partial()
      .describe('an object'),
  ),
  // Claude Code's `mcpServers` shape (as in .mcp.json); servers of every settings file add up by name.
  mcpServers: lazily(() => z.record(z.string(), z.unknown()).describe('an object of MCP servers by name, as in .mcp.json')),
  mcp: lazily(() =>
    z
      .object({
        timeoutMs: z.int().positive().describe('a number of milliseconds'),
      })
      .partial()
      .describe('an object'),
  ),
  // Language servers in Claude Code's `lspServers` shape (as in a plugin's .lsp.json); servers of
  // every settings file add up by name. A repository's own file may not declare them before it is trusted.
  lsp: lazily(() =>
    z
      .object({
        servers: z.record(z.string(), z.unknown()).describe("an object of language servers by name, as in a plugin's .lsp.json"),
        diagnostics: z.boolean().describe('true or false'),
        diagnosticsTimeoutMs: z.int().positive().describe('a number of milliseconds'),
        requestTimeoutMs: z.int().positive().describe('a number of milliseconds'),
      })
      .partial()
      .describe('an object'),
  ),
  // Claude Code's hook shape; merged across settings files by the hooks loader, not here. Beans adds
  // `env`: hooks run without the provider keys, as MCP servers and commands do; these are kept.
  hooks: lazily(() =>
    hooksSchema()
      .extend({
        env: z
          .object({ passThrough: list('a list of environment variable names') })
          .partial()
          .describe('an object {"passThrough": [names]}')
          .optional(),
      })
      .describe(hooksSchema().description ?? 'an object'),
  ),
  guardrails: guardrailsSchema,
  sop: lazily(() => z.string().describe('a string')),
  // The chat input's key bindings: "vim" for normal/insert modes (Claude Code's `editorMode`; `/vim` toggles it).
  editorMode: lazily(() => z.enum(['normal', 'vim']).describe('"normal" or "vim"')),
  debug: lazily(() => z.boolean().describe('true or false')),
};

type Sections = { [K in keyof typeof sections]: ReturnType<(typeof sections)[K]> };

export const settingsSchema = lazily(() =>
  z
    .object(Object.fromEntries(Object.entries(sections).map(([key, build]) => [key, build()])) as Sections)
    .partial()
    .describe('a JSON object'),
);

/** The schema of one top-level key; undefined for a key the settings do not have. */
export function settingSection(key: string): z.ZodType | undefined {
  return Object.hasOwn(sections, key) ? sections[key as keyof typeof sections]() : undefined;
}

/** The top-level keys, in the schema's order. */
export const SETTING_SECTIONS: readonly string[] = Object.keys(sections);

/** The shape of one settings file: every key optional. */
export type BeansSettings = z.infer<ReturnType<typeof settingsSchema>>;

/** The effective configuration: settings merged over the defaults. */
export interface BeansConfig {
  provider?: string;
  model?: string;
  /** `models.<provider>`, for the built-in providers. */
  models: Record<string, string | undefined>;
  ollama: { host: string; keepAlive?: string; images?: boolean };
  gemini: { baseUrl?: string };
  openai: { baseUrl?: string; promptCacheKey?: boolean; images?: boolean };
  anthropic: { baseUrl?: string };
  /** The embedded llama.cpp provider's options (llm/local-client.ts). */
  local: {
    gpu?: 'auto' | 'off';
    strictTools?: boolean;
    toolChoice?: 'auto' | 'required';
    contextSize?: number;
    threads?: number;
    maxTokens?: number;
    seed?: number;
  };
  /** OpenAI-compatible endpoints added by settings, by provider name. */
  providers: Record<string, { type: 'openai'; baseUrl: string; apiKeyEnv?: string; models?: string[]; promptCacheKey?: boolean }>;
  permissions: {
    mode: PermissionMode;
    allow: string[];
    deny: string[];
    /** Read-only command lines run without asking (issue #31). */ readOnlyCommands: boolean;
  };
  maxTurns?: number;
  maxBudgetUsd?: number;
  /** How much the model may think: off, a level, or a token budget (0 is off). */
  thinking?: string;
  plugins: { dirs: string[]; disabled: string[] };
  sessions: { dir?: string };
  ui: { theme?: 'dark' | 'light' | 'high-contrast'; markdown: boolean; showCost: boolean };
  tools: { env: { passThrough: string[]; strip: string[] }; defer: 'auto' | 'always' | 'never'; deferThreshold?: number };
  shell: { maxBackgroundTasks: number };
  checkpoints: { enabled: boolean; maxBytes: number; maxFileBytes: number };
  loopDetection: { enabled: boolean; maxRepeats?: number };
  compaction: { enabled: boolean; threshold: number; contextWindow?: number };
  /** The chat footer's custom line (a command; a repository's waits for trust). */
  statusLine?: { type: 'command'; command: string; padding?: number };
  /** Unset fields: the chat's or one-shot's own defaults (llm/retry.ts). */
  retry: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  sandbox: { enabled: boolean; allowedHosts: string[]; network: { allowUnixSockets: string[]; allowAllUnixSockets: boolean } };
  agents: { maxParallel?: number; maxTurns?: number };
  input: { maxStdinBytes: number };
  webFetch: { allowPrivateNetwork: boolean; timeoutMs?: number; maxBytes?: number };
  telemetry: { enabled: boolean; logPrompts: boolean; includeRepository: boolean; organization?: string };
  mcpServers?: Record<string, unknown>;
  mcp: { timeoutMs?: number };
  /** Language servers (issue #35): diagnostics after edits and the `lsp` tool. */
  lsp: { servers?: Record<string, unknown>; diagnostics: boolean; diagnosticsTimeoutMs: number; requestTimeoutMs: number };
  workflows: {
    backend?: 'local' | 'dbos';
    databaseUrl?: string;
    maxConcurrentCalls?: number;
    workerConcurrency?: number;
    rateLimit?: { calls?: number; periodMs?: number };
  };
  runners: {
    providers?: string[];
    models?: string[];
    permissionModes?: PermissionMode[];
    maxTurns?: number;
    concurrency?: number;
    maxSessionsPerProvider?: number;
    trustWorktrees?: boolean;
    sandbox?: boolean;
    recoveryAfterMs?: number;
    drainGraceMs?: number;
    workdir?: string;
  };
  hooks?: HooksSettings & { env?: { passThrough?: string[] } };
  guardrails?: GuardrailsSettings;
  sop?: string;
  editorMode: 'normal' | 'vim';
  debug: boolean;
}

export { DEFAULT_OLLAMA_HOST };

/** Defaults as dotted leaf keys, so `beans config` can say a value came from the defaults. */
export const CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = {
  ...Object.fromEntries(BUILTIN_PROVIDERS.filter((p) => p.endpoint?.default).map((p) => [`${p.id}.${p.endpoint!.name}`, p.endpoint!.default])),
  'permissions.mode': 'default',
  'permissions.allow': [],
  'permissions.deny': [],
  'permissions.readOnlyCommands': true,
  'plugins.dirs': [],
  'plugins.disabled': [],
  'checkpoints.enabled': true,
  'checkpoints.maxBytes': 512 * 1024 * 1024,
  'checkpoints.maxFileBytes': 10 * 1024 * 1024,
  'loopDetection.enabled': true,
  'compaction.enabled': true,
  'compaction.threshold': 0.8,
  'tools.env.passThrough': [],
  'tools.env.strip': [],
  'tools.defer': 'auto',
  'shell.maxBackgroundTasks': 8,
  'sandbox.enabled': false,
  'webFetch.allowPrivateNetwork': false,
  'input.maxStdinBytes': 10 * 1024 * 1024,
  'sandbox.allowedHosts': [],
  'sandbox.network.allowUnixSockets': [],
  'sandbox.network.allowAllUnixSockets': false,
  'lsp.diagnostics': true,
  'lsp.diagnosticsTimeoutMs': 3_000,
  'lsp.requestTimeoutMs': 10_000,
  'telemetry.enabled': false,
  'telemetry.logPrompts': false,
  'telemetry.includeRepository': false,
  'ui.markdown': true,
  'ui.showCost': true,
  editorMode: 'normal',
  debug: false,
};

/**
 * The model for a provider: an explicit `model` wins (it is what the user asked for last), else the
 * per-provider `models.<provider>`; undefined lets the provider pick its default.
 */
export function modelForProvider(config: Pick<BeansConfig, 'model' | 'models'>, provider: string): string | undefined {
  return config.model ?? config.models[provider];
}
