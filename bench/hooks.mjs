// Hook overhead: five no-op command hooks on every tool call.
// (1) in-process: the hook runner alone, PreToolUse and PostToolUse, per call (hooks of an event run in parallel);
// (2) end to end: a 40-call session of the built beans against a scripted Ollama server, with and
// without five no-op PreToolUse hooks in the user's settings; the difference per call.
// Run: node bench/hooks.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, fmt, median, runBeans, tempRepo } from './lib.mjs';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';

const core = await import(path.join(ROOT, 'packages/core/dist/index.js'));
const HOOKS = 5;
const CALLS = 40;
const noop = (event) =>
  Array.from({ length: HOOKS }, (_, i) => ({ event, matcher: '*', command: `exit 0 # no-op ${i}`, timeout: 60, source: { kind: 'user', file: 'bench' } }));

// (1) In-process.
const cwd = tempRepo();
const runner = core.createHookRunner({
  hooks: [...noop('PreToolUse'), ...noop('PostToolUse')],
  sessionId: 'bench',
  transcriptPath: '',
  cwd: cwd.dir,
  permissionMode: () => 'default',
});
const call = { id: 'c1', tool: 'read_file', input: { path: 'notes.txt' } };
for (let i = 0; i < 5; i += 1) await runner.preToolUse(call); // warm-up
const pre = [];
const both = [];
for (let i = 0; i < 30; i += 1) {
  let started = performance.now();
  await runner.preToolUse(call);
  pre.push(performance.now() - started);
  started = performance.now();
  await runner.preToolUse(call);
  await runner.postToolUse(call, { content: '1: hello' });
  both.push(performance.now() - started);
}
console.log(`in-process, ${HOOKS} no-op PreToolUse hooks           median ${fmt(median(pre))} per call`);
console.log(`in-process, ${HOOKS} PreToolUse + ${HOOKS} PostToolUse      median ${fmt(median(both))} per call`);
cwd.cleanup();

// (2) End to end through the real program.
async function session(withHooks) {
  const repo = tempRepo();
  writeFileSync(path.join(repo.dir, 'notes.txt'), 'hello\n'.repeat(CALLS + 1));
  if (withHooks) {
    const config = path.join(repo.home, '.config', 'beans-agent');
    mkdirSync(config, { recursive: true });
    const group = (event) => [{ matcher: '*', hooks: noop(event).map(({ command }) => ({ type: 'command', command })) }];
    writeFileSync(path.join(config, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: group('PreToolUse') } }));
  }
  const server = await startScriptedOllama({
    turns: (request, n) => (n < CALLS ? { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt', offset: n + 1, limit: 1 } }] } : { text: 'done' }),
  });
  const run = await runBeans(['-p', 'go', '--max-turns', String(CALLS + 5), '-o', 'json'], {
    cwd: repo.dir,
    env: { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' },
  });
  await server.close();
  repo.cleanup();
  if (run.code !== 0) throw new Error(`beans failed (${run.code}): ${run.stderr}`);
  return run.ms;
}
const plain = [];
const hooked = [];
for (let i = 0; i < 3; i += 1) {
  plain.push(await session(false));
  hooked.push(await session(true));
}
const perCall = (median(hooked) - median(plain)) / CALLS;
console.log(`e2e ${CALLS}-call session, no hooks                 median wall ${fmt(median(plain))}`);
console.log(`e2e ${CALLS}-call session, ${HOOKS} no-op PreToolUse hooks  median wall ${fmt(median(hooked))}  -> ${fmt(perCall)} overhead per tool call`);
