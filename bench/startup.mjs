// Start-up benchmarks: `beans --version`, time from process start to the first provider request
// for `beans -p hi` on each provider, and the size of that first request (system prompt + tool declarations).
// Run: node bench/startup.mjs   (after ./scripts/setup.sh; uses the Node from scripts/toolchain.sh)
import { startScriptedAnthropic } from '../test/support/scripted-anthropic.ts';
import { startScriptedGemini } from '../test/support/scripted-gemini.ts';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { startScriptedOpenAi } from '../test/support/scripted-openai.ts';
import { fmt, median, runBeans, tempRepo } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const repo = tempRepo();

const version = [];
for (let i = 0; i < RUNS; i += 1) version.push((await runBeans(['--version'], { cwd: repo.dir, env: repo.env })).ms);
console.log(`beans --version               median ${fmt(median(version))}  (min ${fmt(Math.min(...version))}, ${RUNS} runs)`);

// Per provider: its scripted server, the environment that points Beans at it, and where its
// request body keeps the system prompt and the tool declarations.
const PROVIDERS = {
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

const only = process.argv.slice(2);
for (const [provider, spec] of Object.entries(PROVIDERS)) {
  if (only.length > 0 && !only.includes(provider)) continue;
  const server = await spec.start({ turns: [{ text: 'hello' }] });
  const env = { ...repo.env, ...spec.env(server.url) };
  const firstRequest = [];
  const total = [];
  let bytes = 0;
  let detail = '';
  for (let i = 0; i < RUNS; i += 1) {
    const before = server.requests.length;
    const startedAt = performance.timeOrigin + performance.now();
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env });
    if (run.code !== 0) throw new Error(`${provider}: beans -p hi failed (${run.code}): ${run.stderr}`);
    const chat = server.requests.slice(before).find((request) => request.kind === 'chat');
    firstRequest.push(chat.time - startedAt);
    total.push(run.ms);
    bytes = chat.bytes;
    detail = `system prompt ${Buffer.byteLength(spec.system(chat.body))} B, tool declarations ${Buffer.byteLength(JSON.stringify(chat.body.tools ?? []))} B`;
  }
  const name = provider.padEnd(9);
  console.log(`${name} beans -p hi: first request median ${fmt(median(firstRequest))}, whole run median ${fmt(median(total))}`);
  console.log(`${name} first request body ${bytes} B (${(bytes / 1024).toFixed(1)} KB): ${detail}`);
  await server.close();
}
repo.cleanup();
