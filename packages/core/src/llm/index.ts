export * from './types.js';
export { parseThinking, thinkingBudget, thinkingLevel, type Thinking } from './thinking.js';
export { registerProvider, getProvider, listProviders } from './registry.js';
export { collectStream, type StreamFn } from './collect.js';
export {
  BUILTIN_PROVIDERS,
  registerBuiltinProviders,
  registerCustomProviders,
  providerDefinition,
  customProviderDefinition,
  createClient,
  createProviderClient,
  resolveProvider,
  providerKeyVariables,
  modelLimits,
  defaultProviderId,
  resolveModelAlias,
  mapModelAlias,
  type CustomProviderSettings,
  type ProviderConfig,
} from './providers.js';
export { geminiProvider, geminiApiKey, DEFAULT_GEMINI_MODEL, DEFAULT_GEMINI_BASE_URL } from './gemini.js';
export { ollamaProvider, resolveOllamaHost } from './ollama.js';
export { localProvider, DEFAULT_LOCAL_MODEL, isLocalModelName } from './local.js';
export {
  localModelsDir,
  listLocalModelFiles,
  parseModelUri,
  cachedFileName,
  resolveLocalModel,
  formatBytes as formatModelBytes,
  type ModelUri,
} from './local-models.js';
export { pullModel, type PullOptions, type PullProgress, type PullResult } from './local-pull.js';
export { openaiProvider, DEFAULT_OPENAI_MODEL } from './openai.js';
export { anthropicProvider, DEFAULT_ANTHROPIC_MODEL } from './anthropic.js';
export { apiKeyFrom, missingKeyFailure } from './provider-info.js';
export { sdkWarningsOnce } from './sdk-warnings.js';
export {
  classifyError,
  toProviderFailure,
  failureFromInfo,
  failureToError,
  abortedFailure,
  missingGeminiKeyFailure,
  exitCodeForFailure,
  providerName,
  type ErrorInfo,
  type FailureContext,
} from './failures.js';
export {
  DEFAULT_RETRY_POLICY,
  INTERACTIVE_RETRY_POLICY,
  retryPolicy,
  retryDelayMs,
  parseRetryAfter,
  sleep,
  streamWithRetry,
  withRetry,
  type RetryPolicy,
} from './retry.js';
export { priceForModel, costUsd } from './pricing.js';
