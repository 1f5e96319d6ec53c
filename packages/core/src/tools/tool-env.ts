/**
 * The keys Beans itself uses to reach model providers, and the URL (with its password) of the
 * workflows' and runners' database. They must never reach a command the model runs: `echo
 * $GEMINI_API_KEY` would put the key into the model's context and the session file, and a runner's
 * session holding the database URL could rewrite every other session queued there.
 */
export const PROVIDER_KEY_VARIABLES: readonly string[] = [
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'BEANS_DATABASE_URL',
];

export interface ToolEnvironmentOptions {
  /** More variables holding keys Beans uses (custom providers' `apiKeyEnv`). */
  extraKeyVars?: readonly string[];
  /** Variables to keep although they are keys (the user's explicit choice, `tools.env.passThrough`). */
  passThrough?: readonly string[];
  /** More variables to remove (`tools.env.strip`). */
  strip?: readonly string[];
}

/** The environment for commands the model runs: Beans' own environment without the keys it uses. */
export function toolEnvironment(env: NodeJS.ProcessEnv, options: ToolEnvironmentOptions = {}): NodeJS.ProcessEnv {
  const keep = new Set(options.passThrough ?? []);
  const remove = new Set([...PROVIDER_KEY_VARIABLES, ...(options.extraKeyVars ?? []), ...(options.strip ?? [])].filter((name) => !keep.has(name)));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!remove.has(name)) out[name] = value;
  return out;
}
