// Start-up benchmarks: `beans --version`, time from process start to the first provider request
// for `beans -p hi`, and the size of that first request (system prompt + tool declarations).
// Run: node bench/startup.mjs   (after ./scripts/setup.sh; uses the Node from scripts/toolchain.sh)
import { startScriptedGemini } from '../test/support/scripted-gemini.ts';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { fmt, median, runBeans, tempRepo } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const repo = tempRepo();

const version = [];
for (let i = 0; i < RUNS; i += 1) version.push((await runBeans(['--version'], { cwd: repo.dir, env: repo.env })).ms);
console.log(`beans --version               median ${fmt(median(version))}  (min ${fmt(Math.min(...version))}, ${RUNS} runs)`);

for (const provider of ['ollama', 'gemini']) {
  const server = provider === 'ollama' ? await startScriptedOllama({ turns: [{ text: 'hello' }] }) : await startScriptedGemini({ turns: [{ text: 'hello' }] });
  const env = provider === 'ollama'
    ? { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' }
    : { ...repo.env, GEMINI_API_KEY: 'bench', GOOGLE_GEMINI_BASE_URL: server.url, BEANS_MODEL: 'gemini-2.5-flash' };
  const firstRequest = [];
  const total = [];
  let bytes = 0;
  let detail = '';
  for (let i = 0; i < RUNS; i += 1) {
    const before = server.requests.length;
    const startedAt = performance.timeOrigin + performance.now();
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env });
    if (run.code !== 0) throw new Error(`beans -p hi failed (${run.code}): ${run.stderr}`);
    const chat = server.requests.slice(before).find((request) => request.kind === 'chat');
    firstRequest.push(chat.time - startedAt);
    total.push(run.ms);
    bytes = chat.bytes;
    const body = chat.body;
    const system = provider === 'ollama' ? body.messages.find((m) => m.role === 'system')?.content ?? '' : body.systemInstruction?.parts?.map((p) => p.text).join('') ?? '';
    const tools = JSON.stringify(provider === 'ollama' ? body.tools : body.tools);
    detail = `system prompt ${Buffer.byteLength(system)} B, tool declarations ${Buffer.byteLength(tools)} B`;
  }
  console.log(`${provider.padEnd(6)} beans -p hi: first request median ${fmt(median(firstRequest))}, whole run median ${fmt(median(total))}`);
  console.log(`${provider.padEnd(6)} first request body ${bytes} B (${(bytes / 1024).toFixed(1)} KB): ${detail}`);
  await server.close();
}
repo.cleanup();
