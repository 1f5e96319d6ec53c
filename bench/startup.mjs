// Start-up benchmarks: `beans --version`, time from process start to the first provider request
// for `beans -p hi` on each provider, and the size of that first request (system prompt + tool declarations).
// Run: node bench/startup.mjs   (after ./scripts/setup.sh; uses the Node from scripts/toolchain.sh)
import { chosenProviders } from './providers.mjs';
import { spawnSync } from 'node:child_process';
import { BEANS, fmt, median, runBeans, runCommand, tempRepo, untilDrawn } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const repo = tempRepo();

// The floor: the same Node starting and doing nothing. Goals are ratios to it (issue 21).
const floorRuns = [];
const version = [];
for (let i = 0; i < RUNS; i += 1) {
  floorRuns.push((await runCommand(process.execPath, ['-e', '0'], { cwd: repo.dir, env: repo.env })).ms);
  version.push((await runBeans(['--version'], { cwd: repo.dir, env: repo.env })).ms);
}
const floor = median(floorRuns);
const ratio = (ms) => `${(ms / floor).toFixed(2)}x the floor`;
console.log(`node -e 0 (the floor)         median ${fmt(floor)}`);
console.log(`beans --version               median ${fmt(median(version))}  (${ratio(median(version))}; min ${fmt(Math.min(...version))}, ${RUNS} runs)`);

for (const [provider, spec] of chosenProviders()) {
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
  console.log(`${name} beans -p hi: first request median ${fmt(median(firstRequest))} (${ratio(median(firstRequest))}), whole run median ${fmt(median(total))}`);
  console.log(`${name} first request body ${bytes} B (${(bytes / 1024).toFixed(1)} KB): ${detail}`);
  await server.close();
}

// Interactive start: `beans chat` in a pseudo-terminal until its prompt is drawn.
if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0) {
  const [, spec] = chosenProviders(['ollama'])[0];
  const server = await spec.start({ turns: [{ text: 'hello' }] });
  const drawn = [];
  for (let i = 0; i < RUNS; i += 1) drawn.push(await untilDrawn(BEANS, ['chat'], /Ask anything/, { cwd: repo.dir, env: { ...repo.env, ...spec.env(server.url) } }));
  console.log(`beans chat: prompt drawn      median ${fmt(median(drawn))} (${ratio(median(drawn))})`);
  await server.close();
} else {
  console.log('beans chat: not measured (needs `script` from util-linux)');
}
repo.cleanup();
