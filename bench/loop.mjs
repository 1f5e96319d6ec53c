// Loop overhead. (1) In-process: the agent loop alone against a generator that yields canned events,
// per turn. No provider, no HTTP, no JSON: it is the floor of Beans' own cost, not what a user sees.
// (2) End to end, on each provider: the built beans against its scripted server, a 20-turn and a
// 200-turn tool-using session; the marginal cost per turn is (t200 - t20) / 180, so start-up and the
// first request drop out. Also the 200-turn session's peak RSS and its last request's size.
// Run: node bench/loop.mjs [ollama|gemini|openai|anthropic ...]
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, median, runBeans, tempRepo } from './lib.mjs';
import { chosenProviders } from './providers.mjs';

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
  const result = await core.runAgentLoop(
    [core.userMessage('go')],
    messages,
    {
      model: 'fake',
      systemPrompt: 'bench',
      tools: new core.ToolRegistry(core.builtinTools()),
      stream: zeroLatency,
      toolContext: { workspace, state: core.createToolSessionState() },
    },
    () => {},
  );
  if (result.turns !== TURNS + 1) throw new Error(`expected ${TURNS + 1} turns, got ${result.turns}`);
  perTurn.push((performance.now() - started) / result.turns);
}
console.log(`in-process loop overhead       median ${(median(perTurn) * 1000).toFixed(0)} µs per turn (${TURNS + 1} turns, 5 runs)`);

// (2) End to end through the real program. Each turn reads a different 10-line window of notes.txt,
// cycling through 40, so the calls are ordinary work and loop detection has nothing to stop.
const repo = tempRepo();
writeFileSync(path.join(repo.dir, 'notes.txt'), Array.from({ length: 400 }, (_, i) => `note ${i + 1}: hello`).join('\n'));
const session = async (spec, turns) => {
  const server = await spec.start({
    turns: (request, n) =>
      n < turns
        ? { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt', offset: (n % 40) * 10 + 1, limit: 10 } }], usage: { input: 100, output: 10 } }
        : { text: 'all done' },
  });
  const run = await runBeans(['-p', 'go', '--max-turns', String(turns + 5), '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, ...spec.env(server.url) } });
  await server.close();
  if (run.code !== 0) throw new Error(`beans failed (${run.code}): ${run.stderr}`);
  const result = JSON.parse(run.stdout);
  if (result.num_turns !== turns + 1) throw new Error(`expected ${turns + 1} turns, got ${result.num_turns}`);
  return { ms: run.ms, peakMb: run.peakKb / 1024, lastKb: server.requests.filter((r) => r.kind === 'chat').at(-1).bytes / 1024 };
};
for (const [provider, spec] of chosenProviders()) {
  const short = [];
  const long = [];
  for (let run = 0; run < 3; run += 1) {
    short.push(await session(spec, 20));
    long.push(await session(spec, TURNS));
  }
  const marginal = (median(long.map((r) => r.ms)) - median(short.map((r) => r.ms))) / (TURNS - 20);
  const peak = median(long.map((r) => r.peakMb));
  console.log(
    `${provider.padEnd(9)} e2e: ${marginal.toFixed(2)} ms per extra turn (200 vs 20 turns, medians of 3), 200 turns in ${(median(long.map((r) => r.ms)) / 1000).toFixed(2)} s, peak RSS ${peak.toFixed(1)} MiB, last request ${long[0].lastKb.toFixed(0)} KB`,
  );
}
repo.cleanup();
