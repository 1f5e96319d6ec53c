import { ProviderError } from '../errors.js';
import { createProviderClient, exitCodeForFailure, listLocalModelFiles, resolveLocalModel, type LLMClient } from '../llm/index.js';
import type { RuntimeBase } from './base.js';

/** No provider can run and no local model is pulled: chat offers to pull the default model (exit 3 otherwise). */
export class NoModelError extends ProviderError {
  constructor(message: string) {
    super(message, 'unreachable', 3);
  }
}

/** The provider and model a session runs with once its model is known. */
export interface SettledModel {
  providerId: string;
  client: LLMClient;
  resolved: { model: string; note?: string };
}

/**
 * The client's model; and when nothing was chosen (no provider set, no API key, so Ollama by
 * default) and Ollama does not answer, the local provider (issue 45): the default model when it
 * is pulled, else the first pulled file; with none, one sentence naming `beans models pull` and
 * the other ways to configure a provider (exit 3).
 */
export async function settleModel(
  base: Pick<RuntimeBase, 'config' | 'env'>,
  providerId: string,
  client: LLMClient,
  clientGiven: boolean,
): Promise<SettledModel> {
  const result = await client.resolveModel();
  if (!('failure' in result)) return { providerId, client, resolved: result };
  const failure = result.failure;
  const chosenByDefault = !clientGiven && providerId === 'ollama' && !base.config.values.provider;
  if (!chosenByDefault || failure.kind !== 'unreachable') throw new ProviderError(failure.message, failure.kind, exitCodeForFailure(failure));
  // "Cannot reach Ollama at <host> (<why>)", without its advice: the sentence below gives the choices.
  const unreachable = failure.message.split('. ')[0].replace(/\.$/, '');
  const preferred = resolveLocalModel(undefined, base.env);
  const file = 'file' in preferred ? preferred.file : listLocalModelFiles(base.env)[0]?.file;
  if (!file) {
    throw new NoModelError(
      `${unreachable}, no API key is set (GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY) and no local model is downloaded. Run \`beans models pull\` to download one that runs inside Beans (Qwen3 1.7B, about 2 GB), set one of those keys, or start Ollama (\`ollama serve\`).`,
    );
  }
  const local = await createProviderClient('local', { ...base.config, values: { ...base.config.values, model: file } }, base.env);
  const picked = await local.resolveModel();
  if ('failure' in picked) throw new ProviderError(picked.failure.message, picked.failure.kind, exitCodeForFailure(picked.failure));
  return {
    providerId: 'local',
    client: local,
    resolved: { model: picked.model, note: `${unreachable} and no API key is set: using the local model ${file}. Choose another with --provider and --model.` },
  };
}
