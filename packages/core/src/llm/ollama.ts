import type { ProviderDefinition } from './types.js';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
const DEFAULT_PORT = '11434';

/**
 * The Ollama address: an explicit one, else OLLAMA_HOST (the ollama client ignores it, so Beans
 * reads it), else the local default. Accepts what the ollama CLI accepts: `host`, `host:port`,
 * `:port` and full URLs; a bind-all address means this machine.
 */
export function resolveOllamaHost(env: NodeJS.ProcessEnv = process.env, explicit?: string): string {
  const raw = (explicit ?? env.OLLAMA_HOST ?? '').trim();
  if (!raw) return DEFAULT_OLLAMA_HOST;
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  const withScheme = hasScheme ? raw : `http://${raw.startsWith(':') ? `127.0.0.1${raw}` : raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return raw; // left as given, so the connection error names exactly what the user wrote
  }
  if (!url.port && !hasScheme) url.port = DEFAULT_PORT;
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.toString().replace(/\/+$/, '');
}

/** Ollama through the `ollama` package, imported only when a client is created. */
export const ollamaProvider: ProviderDefinition = {
  id: 'ollama',
  label: 'Ollama (local models; OLLAMA_HOST)',
  endpoint: { name: 'host', describe: 'an Ollama host URL such as "http://127.0.0.1:11434"', env: 'OLLAMA_HOST', default: DEFAULT_OLLAMA_HOST },
  // No fixed models exist locally: aliases resolve to the configured or auto-picked model.
  modelAliases: {},
  prices: 'free',
  hints: {
    name: 'Ollama',
    auth: 'Ollama at {host} refused the request ({http}){said}. Check OLLAMA_HOST and the credentials of any proxy in front of Ollama.',
    unreachable: 'Cannot reach Ollama at {host} ({detail}). Start Ollama (`ollama serve`) or set OLLAMA_HOST to the address it listens on.',
    modelNotFound:
      'Model "{model}" is not installed in Ollama at {host}. Pull it with `ollama pull {model}`, or run `beans models list` to see the installed models.',
    noModels: 'Install one with `ollama pull qwen3`.',
    rateLimit: 'Ollama at {host} is too busy ({http}){tries}{said}. Wait a moment and try again.',
  },
  isConfigured: () => true,
  client: 'ollama',
};
