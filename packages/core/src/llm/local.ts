import type { ProviderDefinition } from './types.js';

/**
 * The model `beans models pull` fetches when given no URI, and the one the local provider uses when
 * no model is configured: Qwen3 1.7B (Apache-2.0), 8-bit, about 2 GB, from Qwen's own GGUF repository.
 */
export const DEFAULT_LOCAL_MODEL = 'hf:Qwen/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q8_0.gguf';

/**
 * The embedded llama.cpp provider (node-llama-cpp, an optional dependency loaded on first use).
 * `--model` is a GGUF file, a model URI (`hf:<user>/<repo>:<quant>`, `hf:<user>/<repo>/<file>`, or
 * an https URL) pulled with `beans models pull`, or the name of a pulled file.
 */
export const localProvider: ProviderDefinition = {
  id: 'local',
  label: 'Local GGUF models run inside Beans (llama.cpp; `beans models pull`)',
  defaultModel: DEFAULT_LOCAL_MODEL,
  modelAliases: {},
  prices: 'free',
  hints: {
    name: 'the local model',
    modelNotFound: 'No local model "{model}". Pull it with `beans models pull {model}`, or pass a GGUF file to --model.',
    noModels: 'Pull one with `beans models pull` (the default model) or `beans models pull <hf:user/repo:quant | URL>`.',
  },
  // Never chosen by a key: it is picked by --provider local, a GGUF --model, or when nothing else can run.
  isConfigured: () => false,
  client: 'local',
};

/** True when a model name can only mean the local provider: a .gguf path or an `hf:` URI. */
export function isLocalModelName(model: string | undefined): boolean {
  return !!model && (/\.gguf$/i.test(model.trim()) || /^hf:/i.test(model.trim()));
}
