import * as z from 'zod';
import { DEFAULT_OLLAMA_HOST } from '../llm/ollama.js';
import { guardrailsSchema, type GuardrailsSettings } from '../guardrails/schema.js';
import { hooksSchema, type HooksSettings } from '../hooks/schema.js';
import { BUILTIN_PROVIDERS } from '../llm/providers.js';
import type { PermissionMode } from '../permissions/types.js';

// Why zod rather than a hand-written checker: `node -e "import('zod')"` takes ~70 ms against ~30 ms
// for an empty script here (zod itself ~45 ms), which would matter on its own. But @beans/core's
// entry point already loads zod for tool schemas (tools/tool.ts), so any process that reads settings
// has paid for it; validating with it adds nothing. Paths that must stay fast (`beans --version`)
// should not import @beans/core at all.
//
// Each leaf's `.describe()` text is what a user is told was expected, so keep it a noun phrase.

const name = (what: string) => z.string().min(1).describe(what);
const list = (what: string) => z.array(z.string().describe('a string')).describe(what);

export const PERMISSION_MODES = ['default', 'auto-edit', 'yolo', 'plan'] as const satisfies readonly PermissionMode[];

// Provider settings come from the providers' definitions: `models.<id>` and `<id>.<endpoint>`
// (`ollama.host`, `gemini.baseUrl`, `openai.baseUrl`, `anthropic.baseUrl`).
const modelsSchema = z
  .object(Object.fromEntries(BUILTIN_PROVIDERS.map((p) => [p.id, name(`a ${p.hints.name} model name`)])))
  .partial()
  .describe('an object with a model per provider');
const endpointSchemas = Object.fromEntries(
  BUILTIN_PROVIDERS.filter((p) => p.endpoint).map((p) => [p.id, z.object({ [p.endpoint!.name]: name(p.endpoint!.describe) }).partial().describe('an object')]),
);

/** One OpenAI-compatible server added by settings: `"providers": {"lmstudio": {...}}`. */
export const customProviderSchema = z
  .object({
    type: z.literal('openai').describe('"openai" (the only protocol custom endpoints speak)'),
    baseUrl: z.url().describe('an endpoint URL such as "http://localhost:1234/v1"'),
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe('the name of the environment variable holding the key'),
    models: list('a list of model names'),
  })
  .partial({ apiKeyEnv: true, models: true })
  .strict()
  .describe('an object with "type": "openai", "baseUrl", and optionally "apiKeyEnv" and "models"');

const builtinIds = new Set(BUILTIN_PROVIDERS.map((p) => p.id));

export const settingsSchema = z
  .object({
    provider: name('a provider name such as "gemini", "anthropic", "openai", "ollama", or one of the "providers" setting'),
    model: name('a model name'),
    models: modelsSchema,
    ...endpointSchemas,
    providers: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/).refine((id) => !builtinIds.has(id), 'a name that is not a built-in provider'), customProviderSchema)
      .describe('an object of OpenAI-compatible endpoints by provider name (lower-case letters, digits, - and _, not a built-in name)'),
    permissions: z
      .object({
        mode: z.enum(PERMISSION_MODES).describe(`one of ${PERMISSION_MODES.map((m) => `"${m}"`).join(', ')}`),
        allow: list('a list of tool names or rules like "shell(git *)"'),
        deny: list('a list of tool names or rules like "shell(rm *)"'),
      })
      .partial()
      .describe('an object'),
    maxTurns: z.int().positive().describe('a positive whole number'),
    maxBudgetUsd: z.number().positive().describe('a positive number of US dollars'),
    plugins: z
      .object({
        dirs: list('a list of folder paths'),
        disabled: list('a list of plugin names'),
      })
      .partial()
      .describe('an object'),
    sessions: z
      .object({
        // The root of the per-workspace session folders (default `<state dir>/sessions`).
        dir: name('a folder path'),
      })
      .partial()
      .describe('an object'),
    ui: z
      .object({
        theme: z.enum(['dark', 'light', 'high-contrast']).describe('"dark", "light" or "high-contrast"'),
        markdown: z.boolean().describe('true or false'),
        showCost: z.boolean().describe('true or false'),
      })
      .partial()
      .describe('an object'),
    tools: z
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
      })
      .partial()
      .describe('an object'),
    compaction: z
      .object({
        enabled: z.boolean().describe('true or false'),
        threshold: z.number().gt(0).max(1).describe('a fraction of the context window between 0 and 1, e.g. 0.8'),
        contextWindow: z.int().positive().describe('a number of tokens'),
      })
      .partial()
      .describe('an object'),
    loopDetection: z
      .object({
        enabled: z.boolean().describe('true or false'),
        maxRepeats: z.int().min(2).describe('a whole number of at least 2'),
      })
      .partial()
      .describe('an object'),
    webFetch: z
      .object({
        // Off by default so a page cannot make Beans probe this machine or its network.
        allowPrivateNetwork: z.boolean().describe('true or false'),
        timeoutMs: z.int().positive().describe('a number of milliseconds'),
        maxBytes: z.int().positive().describe('a number of bytes'),
      })
      .partial()
      .describe('an object'),
    agents: z
      .object({
        // Subagents (the task tool) running at once, and the turn limit of each.
        maxParallel: z.int().positive().describe('a positive whole number'),
        maxTurns: z.int().positive().describe('a positive whole number'),
      })
      .partial()
      .describe('an object'),
    sandbox: z
      .object({
        // Shell commands run in an OS sandbox: writes only in the workspace and temp, no network but these hosts.
        enabled: z.boolean().describe('true or false'),
        allowedHosts: list('a list of host names or "host:port" entries such as "registry.npmjs.org"'),
      })
      .partial()
      .describe('an object'),
    // Claude Code's `mcpServers` shape (as in .mcp.json); servers of every settings file add up by name.
    mcpServers: z.record(z.string(), z.unknown()).describe('an object of MCP servers by name, as in .mcp.json'),
    mcp: z
      .object({
        timeoutMs: z.int().positive().describe('a number of milliseconds'),
      })
      .partial()
      .describe('an object'),
    // Claude Code's hook shape; merged across settings files by the hooks loader, not here.
    hooks: hooksSchema,
    guardrails: guardrailsSchema,
    sop: z.string().describe('a string'),
    debug: z.boolean().describe('true or false'),
  })
  .partial()
  .describe('a JSON object');

/** The shape of one settings file: every key optional. */
export type BeansSettings = z.infer<typeof settingsSchema>;

/** The effective configuration: settings merged over the defaults. */
export interface BeansConfig {
  provider?: string;
  model?: string;
  /** `models.<provider>`, for the built-in providers. */
  models: Record<string, string | undefined>;
  ollama: { host: string };
  gemini: { baseUrl?: string };
  openai: { baseUrl?: string };
  anthropic: { baseUrl?: string };
  /** OpenAI-compatible endpoints added by settings, by provider name. */
  providers: Record<string, { type: 'openai'; baseUrl: string; apiKeyEnv?: string; models?: string[] }>;
  permissions: { mode: PermissionMode; allow: string[]; deny: string[] };
  maxTurns?: number;
  maxBudgetUsd?: number;
  plugins: { dirs: string[]; disabled: string[] };
  sessions: { dir?: string };
  ui: { theme?: 'dark' | 'light' | 'high-contrast'; markdown: boolean; showCost: boolean };
  tools: { env: { passThrough: string[]; strip: string[] } };
  loopDetection: { enabled: boolean; maxRepeats?: number };
  compaction: { enabled: boolean; threshold: number; contextWindow?: number };
  sandbox: { enabled: boolean; allowedHosts: string[] };
  agents: { maxParallel?: number; maxTurns?: number };
  webFetch: { allowPrivateNetwork: boolean; timeoutMs?: number; maxBytes?: number };
  mcpServers?: Record<string, unknown>;
  mcp: { timeoutMs?: number };
  hooks?: HooksSettings;
  guardrails?: GuardrailsSettings;
  sop?: string;
  debug: boolean;
}

export { DEFAULT_OLLAMA_HOST };

/** Defaults as dotted leaf keys, so `beans config` can say a value came from the defaults. */
export const CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = {
  ...Object.fromEntries(BUILTIN_PROVIDERS.filter((p) => p.endpoint?.default).map((p) => [`${p.id}.${p.endpoint!.name}`, p.endpoint!.default])),
  'permissions.mode': 'default',
  'permissions.allow': [],
  'permissions.deny': [],
  'plugins.dirs': [],
  'plugins.disabled': [],
  'loopDetection.enabled': true,
  'compaction.enabled': true,
  'compaction.threshold': 0.8,
  'tools.env.passThrough': [],
  'tools.env.strip': [],
  'sandbox.enabled': false,
  'webFetch.allowPrivateNetwork': false,
  'sandbox.allowedHosts': [],
  'ui.markdown': true,
  'ui.showCost': true,
  debug: false,
};

/**
 * The model for a provider: an explicit `model` wins (it is what the user asked for last), else the
 * per-provider `models.<provider>`; undefined lets the provider pick its default.
 */
export function modelForProvider(config: Pick<BeansConfig, 'model' | 'models'>, provider: string): string | undefined {
  return config.model ?? config.models[provider];
}
