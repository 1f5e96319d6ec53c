import { ConfigError, UsageError } from '../errors.js';
import { BUILTIN_PROVIDERS, providerDefinition, registerBuiltinProviders } from './builtin-providers.js';
import { loadBuiltinClient, loadClient } from './client-loader.js';
import { isLocalModelName } from './local.js';
import { openAiCompatibleHints } from './openai.js';
import { longestPrefix } from './provider-info.js';
import { getProvider, listProviders, registerProvider } from './registry.js';
import type { LLMClient, ProviderDefinition, ProviderOptions } from './types.js';

export { BUILTIN_PROVIDERS, providerDefinition, registerBuiltinProviders };

/** Creates a client for a registered provider; an unknown id is a ConfigError naming the known ones. */
export async function createClient(providerId: string, options: ProviderOptions = {}): Promise<LLMClient> {
  const definition = providerDefinition(providerId);
  if (!definition) {
    const known = listProviders()
      .map((p) => p.id)
      .join(', ');
    throw new ConfigError(`Unknown provider "${providerId}". Known providers: ${known}.`);
  }
  return loadClient(definition, options);
}

/** The first built-in provider that is configured (gemini, anthropic, openai), else Ollama. */
export function defaultProviderId(env: NodeJS.ProcessEnv = process.env): string {
  const configured = BUILTIN_PROVIDERS.find((definition) => definition.id !== 'ollama' && definition.isConfigured(env));
  return configured?.id ?? 'ollama';
}

/** One entry of the `providers` setting: an OpenAI-compatible server added without code. */
export interface CustomProviderSettings {
  type: 'openai';
  baseUrl: string;
  apiKeyEnv?: string;
  models?: string[];
  /** Send `prompt_cache_key` (the session id); off unless set, since some servers reject fields they do not know. */
  promptCacheKey?: boolean;
  /** False for a model that cannot see pictures: each goes as a line saying so. */
  images?: boolean;
}

/**
 * The definition of a custom endpoint from settings. Without `apiKeyEnv` the server is taken to need
 * no key (LM Studio, llama.cpp); with it, the variable must be set.
 */
export function customProviderDefinition(id: string, settings: CustomProviderSettings): ProviderDefinition {
  const keyEnv = settings.apiKeyEnv ? [settings.apiKeyEnv] : [];
  const keyHint = settings.apiKeyEnv ? `Check ${settings.apiKeyEnv}.` : `Set "apiKeyEnv" in the "providers.${id}" setting to the variable holding its key.`;
  const definition: ProviderDefinition = {
    id,
    label: `${settings.baseUrl} (OpenAI-compatible, from the "providers" setting)`,
    apiKeyEnv: keyEnv,
    endpoint: { name: 'baseUrl', describe: 'an endpoint URL', default: settings.baseUrl },
    ...(settings.models?.[0] ? { defaultModel: settings.models[0] } : {}),
    modelAliases: {},
    hints: { ...openAiCompatibleHints(id, keyHint), missingKey: `The provider "${id}" needs an API key: set ${settings.apiKeyEnv}.` },
    isConfigured: (env) => keyEnv.length === 0 || Boolean(env[keyEnv[0]]?.trim()),
    // The OpenAI client (imported by client-loader.ts on first use), with the endpoint's own prompt-cache setting.
    client: 'openai',
    create: (options) =>
      loadBuiltinClient(definition, {
        ...(settings.promptCacheKey !== undefined ? { promptCacheKey: settings.promptCacheKey } : {}),
        ...(settings.images !== undefined ? { images: settings.images } : {}),
        ...options,
      }),
  };
  return definition;
}

/** What provider resolution reads from the configuration (a `LoadedConfig` fits). */
export interface ProviderConfig {
  values: { provider?: string; model?: string; models?: Record<string, string | undefined>; providers?: Record<string, CustomProviderSettings> };
  /** Where each setting came from, so an unknown provider names its source. */
  entries?: readonly { key: string; source: 'flag' | 'env' | 'default' | { file: string } }[];
}

/** Registers the custom endpoints of the `providers` setting (a later call with new settings replaces them). */
export function registerCustomProviders(config: ProviderConfig): void {
  registerBuiltinProviders();
  for (const [id, settings] of Object.entries(config.values.providers ?? {})) {
    if (BUILTIN_PROVIDERS.some((builtin) => builtin.id === id)) continue;
    registerProvider(customProviderDefinition(id, settings));
  }
}

/** Every variable holding a key Beans may use: the registered providers' and the custom endpoints' `apiKeyEnv`. */
export function providerKeyVariables(config: ProviderConfig): string[] {
  registerCustomProviders(config);
  return [...new Set(listProviders().flatMap((definition) => definition.apiKeyEnv ?? []))];
}

/**
 * Which provider to use and why: the `provider` setting (flag, environment or file), else the first
 * configured of gemini, anthropic, openai, else Ollama. An unknown name is bad usage when it came
 * from the command line (exit 2) and a configuration error naming where it was set otherwise (exit 3).
 */
export function resolveProvider(config: ProviderConfig, env: NodeJS.ProcessEnv = process.env): { providerId: string; reason: string } {
  registerCustomProviders(config);
  const chosen = config.values.provider;
  const source = config.entries?.find((entry) => entry.key === 'provider')?.source;
  if (chosen) {
    const where =
      source === 'flag' ? '--provider' : source === 'env' ? 'BEANS_PROVIDER' : source && typeof source === 'object' ? source.file : 'the configuration';
    if (getProvider(chosen)) return { providerId: chosen, reason: `set by ${where}` };
    const known = `Known providers: ${listProviders()
      .map((provider) => provider.id)
      .join(', ')}.`;
    if (source === 'flag') throw new UsageError(`Unknown provider "${chosen}". ${known}`);
    const place =
      source === 'env'
        ? 'the environment variable BEANS_PROVIDER'
        : source && typeof source === 'object'
          ? `the settings file ${source.file}`
          : 'the configuration';
    throw new ConfigError(`Unknown provider "${chosen}" in ${place}. ${known} Fix the setting "provider", or add the endpoint to the "providers" setting.`);
  }
  // A GGUF file or an hf: URI can only be run by the embedded llama.cpp.
  if (isLocalModelName(config.values.model)) return { providerId: 'local', reason: 'the model is a GGUF file or a model URI' };
  for (const definition of BUILTIN_PROVIDERS) {
    if (definition.id === 'ollama') break;
    if (definition.isConfigured(env))
      return { providerId: definition.id, reason: `${(definition.apiKeyEnv ?? []).find((v) => env[v]?.trim()) ?? 'its key'} is set` };
  }
  return { providerId: 'ollama', reason: 'no provider is set and no GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY is set' };
}

/** A client for a provider, configured from settings: `models.<id>` or `model`, and `<id>.<endpoint>`. */
export async function createProviderClient(
  providerId: string,
  config: ProviderConfig,
  env: NodeJS.ProcessEnv = process.env,
  retry?: ProviderOptions['retry'],
): Promise<LLMClient> {
  registerCustomProviders(config);
  const definition = providerDefinition(providerId);
  if (!definition)
    throw new ConfigError(
      `Unknown provider "${providerId}". Known providers: ${listProviders()
        .map((p) => p.id)
        .join(', ')}.`,
    );
  const values = config.values;
  const named = values.model ?? values.models?.[providerId];
  // `-m sonnet`, `"model": "opus"`: the provider's short names map to its current ids, as in agent files.
  const model = named ? mapModelAlias(providerId, named) : undefined;
  const section = (values as Record<string, unknown>)[providerId] as Record<string, unknown> | undefined;
  const endpoint = definition.endpoint ? section?.[definition.endpoint.name] : undefined;
  return loadClient(definition, {
    ...(model ? { model } : {}),
    ...(typeof endpoint === 'string' && endpoint ? { baseUrl: endpoint } : {}),
    ...(typeof section?.promptCacheKey === 'boolean' ? { promptCacheKey: section.promptCacheKey } : {}),
    ...(typeof section?.keepAlive === 'string' || typeof section?.keepAlive === 'number' ? { keepAlive: section.keepAlive } : {}),
    ...(typeof section?.images === 'boolean' ? { images: section.images } : {}),
    ...(section && typeof section === 'object' ? { settings: section } : {}),
    env,
    ...(retry ? { retry } : {}),
  });
}

/** What a provider's definition knows of a model's limits (the SDK's `modelUsage` reports them); empty when unknown. */
export function modelLimits(providerId: string, model: string): { contextWindow?: number; maxOutputTokens?: number } {
  const definition = providerDefinition(providerId);
  if (!definition) return {};
  const contextWindow = definition.contextWindows ? longestPrefix(definition.contextWindows, model) : undefined;
  const maxOutputTokens = definition.maxOutputTokens?.(model);
  return { ...(contextWindow ? { contextWindow } : {}), ...(maxOutputTokens ? { maxOutputTokens } : {}) };
}

/**
 * The model an agent file's `model:` means for a provider: `inherit` (or nothing) keeps the active
 * model, a Claude alias (sonnet, opus, haiku, fable) maps through the provider's aliases, and any
 * other name is taken as a model of that provider.
 */
export function resolveModelAlias(providerId: string, name: string | undefined, activeModel: string): string {
  const wanted = name?.trim();
  if (!wanted || wanted === 'inherit') return activeModel;
  const aliases = providerDefinition(providerId)?.modelAliases ?? {};
  return aliases[wanted.toLowerCase()] ?? (isClaudeAlias(wanted) && providerId !== 'anthropic' ? activeModel : wanted);
}

/**
 * A model named on the command line or in settings: the provider's alias for it (`sonnet`,
 * `flash`...) maps to a current id; any other name is kept as it is.
 */
export function mapModelAlias(providerId: string, name: string): string {
  return providerDefinition(providerId)?.modelAliases?.[name.trim().toLowerCase()] ?? name;
}

// A Claude alias the provider does not map (Ollama has no fixed models) falls back to the active model.
function isClaudeAlias(name: string): boolean {
  return /^(sonnet|opus|haiku|fable)$/i.test(name) || /^claude-/i.test(name);
}
