import type { ProviderDefinition, ProviderFailure } from './types.js';

/** The entry of a prefix table that matches `name` with the longest prefix. */
export function longestPrefix<T>(table: readonly (readonly [string, T])[], name: string): T | undefined {
  let best: readonly [string, T] | undefined;
  for (const entry of table) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** The first non-empty key among the provider's variables. */
export function apiKeyFrom(definition: Pick<ProviderDefinition, 'apiKeyEnv'>, env: NodeJS.ProcessEnv): string | undefined {
  for (const variable of definition.apiKeyEnv ?? []) {
    const value = env[variable]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `A`, `A (or B)`: how messages name the key variables. */
function keyVariables(definition: Pick<ProviderDefinition, 'apiKeyEnv'>): string {
  const [first, ...rest] = definition.apiKeyEnv ?? [];
  if (!first) return 'the API key';
  return rest.length > 0 ? `${first} (or ${rest.join(', ')})` : first;
}

export function missingKeyFailure(definition: Pick<ProviderDefinition, 'apiKeyEnv' | 'hints'>): ProviderFailure {
  const message =
    definition.hints.missingKey ?? `No ${definition.hints.name} API key found. Set ${keyVariables(definition)}, or choose another provider with --provider.`;
  return { kind: 'auth', message, retryable: false };
}
