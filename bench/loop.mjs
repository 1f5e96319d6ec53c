// Loop overhead: (1) in-process, the agent loop against a zero-latency fake provider, per turn;
// (2) end to end, a 200-turn tool-using session of the built beans against a scripted Ollama server:
// wall time and peak memory. Run: node bench/loop.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, fmt, median, runBeans, tempRepo } from './lib.mjs';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';

const core = await import(path.join(ROOT, 'packages/core/dist/index.js'));
const TURNS = 200;

// (1) In-process: each turn streams a tool call and gets its result; the last turn answers.
const zeroLatency = async function* (request) {
  const n = request.messages.filter((m) => m.role === 'assistant').length;
  const usage = { inputTokens: 1, outputTokens: 1, costUsd: 0 };
  if (n < TURNS) {
    const call = { id: `c${n}`, name: 'todo_write', arguments: { todos: [{ content: `step ${n}`, status: 'in_progress' }] } };
    yield { type: 'tool_call', call };
    yield { type: 'done', stopReason: 'tool_use', text: '', toolCalls: [call], usage };
  } else {
    yield { type: 'text_delta', text: 'done' };
    yield { type: 'done', stopReason: 'stop', text: 'done', toolCalls: [], usage };
  }
};
const workspace = core.resolveWorkspace(ROOT);
const perTurn = [];
for (let run = 0; run < 5; run += 1) {
  const messages = [];
  const started = performance.now();
  const result = await core.runAgentLoop([core.userMessage('go')], messages, {
    model: 'fake', systemPrompt: 'bench', tools: new core.ToolRegistry(core.builtinTools()), stream: zeroLatency,
    toolContext: { workspace, state: core.createToolSessionState() },
  }, () => {});
  if (result.turns !== TURNS + 1) throw new Error(`expected ${TURNS + 1} turns, got ${result.turns}`);
  perTurn.push((performance.now() - started) / result.turns);
}
console.log(`in-process loop overhead       median ${(median(perTurn) * 1000).toFixed(0)} µs per turn (${TURNS + 1} turns, 5 runs)`);

// (2) End to end through the real program.
const repo = tempRepo();
writeFileSync(path.join(repo.dir, 'notes.txt'), 'hello\n'.repeat(50));
const server = await startScriptedOllama({
  turns: (request, n) => (n < TURNS ? { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }], usage: { input: 100, output: 10 } } : { text: 'all done' }),
});
const run = await runBeans(['-p', 'go', '--max-turns', String(TURNS + 5), '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
if (run.code !== 0) throw new Error(`beans failed (${run.code}): ${run.stderr}`);
const result = JSON.parse(run.stdout);
const lastBody = server.requests.at(-1).bytes;
console.log(`e2e ${result.num_turns}-turn session          wall ${fmt(run.ms)} (${(run.ms / result.num_turns).toFixed(1)} ms/turn incl. HTTP + JSON), peak RSS ${(run.peakKb / 1024).toFixed(1)} MB, last request ${(lastBody / 1024).toFixed(0)} KB`);
await server.close();
repo.cleanup();
