// The four providers as the benchmarks drive them: a scripted server, the environment that points
// Beans at it, and where a request body keeps the system prompt.
import { startScriptedAnthropic } from '../test/support/scripted-anthropic.ts';
import { startScriptedGemini } from '../test/support/scripted-gemini.ts';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { startScriptedOpenAi } from '../test/support/scripted-openai.ts';

export const PROVIDERS = {
  ollama: {
    start: startScriptedOllama,
    env: (url) => ({ OLLAMA_HOST: url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' }),
    system: (body) => body.messages.find((m) => m.role === 'system')?.content ?? '',
  },
  gemini: {
    start: startScriptedGemini,
    env: (url) => ({ GEMINI_API_KEY: 'bench', GOOGLE_GEMINI_BASE_URL: url, BEANS_MODEL: 'gemini-2.5-flash' }),
    system: (body) => body.systemInstruction?.parts?.map((p) => p.text).join('') ?? '',
  },
  openai: {
    start: startScriptedOpenAi,
    env: (url) => ({ OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-6.1-terra' }),
    system: (body) => body.messages.find((m) => m.role === 'system')?.content ?? '',
  },
  anthropic: {
    start: startScriptedAnthropic,
    env: (url) => ({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: url, BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' }),
    system: (body) => (body.system ?? []).map((block) => block.text).join(''),
  },
};

/** The providers named on the command line (all of them when none is). */
export function chosenProviders(argv = process.argv.slice(2)) {
  const unknown = argv.filter((name) => !Object.hasOwn(PROVIDERS, name));
  if (unknown.length > 0) throw new Error(`Unknown provider ${unknown.join(', ')}: choose from ${Object.keys(PROVIDERS).join(', ')}.`);
  return Object.entries(PROVIDERS).filter(([name]) => argv.length === 0 || argv.includes(name));
}
