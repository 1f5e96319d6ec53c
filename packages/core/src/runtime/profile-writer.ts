import { ProviderError } from '../errors.js';
import { exitCodeForFailure } from '../llm/failures.js';
import type { LLMClient } from '../llm/types.js';
import { profileWriterRequest } from '../plugins/profile.js';

/** Has the LLM write a profile from a one-line description (`beans -a "..."`). */
export async function generateProfile(client: LLMClient, model: string, description: string): Promise<string> {
  const request = profileWriterRequest(description);
  const result = await client.chat({ model, system: request.system, messages: [{ role: 'user', content: request.prompt }] });
  if (result.failure)
    throw new ProviderError(`Could not write the profile: ${result.failure.message}`, result.failure.kind, exitCodeForFailure(result.failure));
  const text = result.text.trim().replace(/^```(?:markdown|md)?\n([\s\S]*?)\n```$/, '$1');
  if (!text) throw new ProviderError('The model returned an empty profile; try again or write .beans/agent.md yourself.', 'unknown');
  return text;
}
