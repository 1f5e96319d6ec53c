// Issue 18: a 500-turn scripted one-shot session on a model with a small context window, so Beans
// compacts again and again. Wall time per 100 turns and peak RSS per 100 turns should stay flat:
// neither the conversation kept in memory nor the work per turn may grow with the session's length.
// Issue 46: beside it, the failing-summariser case: 700 turns of 3 KB reads on a 131k-token window
// where every summary request (a request that declares no tools) is answered with a tool call, a
// 500 or an empty text. Summary requests, compactions, the largest request and the time per turn.
// Run: node bench/long-session.mjs [turns] [failing-turns]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BEANS, fmt, tempRepo } from './lib.mjs';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';

const TURNS = Number(process.argv[2] ?? 500);
const FAILING_TURNS = Number(process.argv[3] ?? 700);
const WINDOW = 100;
const CONTEXT_TOKENS = 8_000;

const repo = tempRepo();
// Each read returns 20 lines (~200 tokens), so a compaction comes every ten turns or so.
writeFileSync(path.join(repo.dir, 'notes.txt'), Array.from({ length: 400 }, (_, i) => `line ${i} of the notes, some words`).join('\n'));

const turnStarts = [];
let summaries = 0;
const server = await startScriptedOllama({
  models: [{ name: 'tiny:latest', capabilities: ['completion', 'tools'], contextLength: CONTEXT_TOKENS }],
  turns: (request) => {
    const first = request.body?.messages?.[0]?.content ?? '';
    if (first.startsWith('Summarise the conversation')) {
      summaries += 1;
      return { text: `SUMMARY ${summaries}: reading notes.txt window by window; nothing changed.`, usage: { input: 2000, output: 40 } };
    }
    turnStarts.push(request.time);
    const n = turnStarts.length;
    if (n > TURNS) return { text: 'all done', usage: { input: 3000, output: 5 } };
    // A different window each turn, so loop detection rightly sees progress.
    return { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt', offset: (n % 380) + 1, limit: 20 } }], usage: { input: 3000, output: 20 } };
  },
});

// RSS sampled from /proc with timestamps, so each block of 100 turns gets its own peak.
const samples = [];
const started = performance.timeOrigin + performance.now();
const child = spawn(BEANS, ['-p', 'read the notes', '-m', 'tiny:latest', '--max-turns', String(TURNS + 10), '-o', 'json'], {
  cwd: repo.dir,
  // NODE_OPTIONS passes through, e.g. --max-old-space-size=64 to see what the session really retains.
  env: { ...repo.env, OLLAMA_HOST: server.url, ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const poll = setInterval(() => {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    if (rss) samples.push({ at: Date.now(), kb: rss });
  } catch {
    // exited
  }
}, 25);
let stdout = '';
let stderr = '';
child.stdout.on('data', (chunk) => (stdout += chunk));
child.stderr.on('data', (chunk) => (stderr += chunk));
const code = await new Promise((resolve) => child.on('close', resolve));
clearInterval(poll);
const wall = Date.now() - started;
await server.close();
if (code !== 0) {
  console.error(`beans exited with ${code}: ${stderr}`);
  repo.cleanup();
  process.exit(1);
}
const result = JSON.parse(stdout);
const lastRequest = server.requests.filter((r) => r.kind === 'chat').at(-1);

console.log(
  `${result.num_turns}-turn session, ${CONTEXT_TOKENS}-token context window: wall ${fmt(wall)}, ${summaries} compactions, last request ${(lastRequest.bytes / 1024).toFixed(1)} KB`,
);
console.log('turns        wall         ms/turn   peak RSS');
for (let from = 0; from + WINDOW <= TURNS; from += WINDOW) {
  const begin = turnStarts[from];
  const end = turnStarts[from + WINDOW] ?? turnStarts.at(-1);
  const peak = Math.max(...samples.filter((s) => s.at >= begin && s.at <= end).map((s) => s.kb), 0);
  console.log(
    `${String(from + 1).padStart(3)}-${String(from + WINDOW).padEnd(6)}  ${fmt(end - begin).padStart(10)}  ${((end - begin) / WINDOW).toFixed(1).padStart(8)}  ${(peak / 1024).toFixed(1).padStart(6)} MB`,
  );
}
const peaks = [];
for (let from = 0; from + WINDOW <= TURNS; from += WINDOW) {
  const begin = turnStarts[from];
  const end = turnStarts[from + WINDOW] ?? turnStarts.at(-1);
  peaks.push(Math.max(...samples.filter((s) => s.at >= begin && s.at <= end).map((s) => s.kb), 0));
}
console.log(
  `peak RSS overall ${(Math.max(...samples.map((s) => s.kb)) / 1024).toFixed(1)} MB; last block / first block: ${(peaks.at(-1) / peaks[0]).toFixed(2)}x`,
);
repo.cleanup();

console.log(`\nfailing summariser: ${FAILING_TURNS} turns of 3 KB reads, 131,072-token window`);
console.log('summary answer   summary requests  compactions  largest request       wall      ms/turn');
for (const failure of ['works', 'tool call', '500', 'empty']) {
  const figures = await failingSummariser(failure, FAILING_TURNS, 131_072);
  console.log(
    `${failure.padEnd(15)}  ${String(figures.summaries).padStart(16)}  ${String(figures.compactions).padStart(11)}  ${`${(figures.largest / 1024).toFixed(0)} KB (~${Math.round(figures.largest / 4 / 1000)}k tok)`.padStart(19)}  ${fmt(figures.wall).padStart(9)}  ${(figures.wall / FAILING_TURNS).toFixed(1).padStart(10)}`,
  );
}

async function failingSummariser(failure, turns, window) {
  const repo = tempRepo();
  writeFileSync(
    path.join(repo.dir, 'notes.txt'),
    Array.from({ length: 2_000 }, (_, i) => `line ${i} of the notes, with a few words to make it longer`).join('\n'),
  );
  let work = 0;
  let summaries = 0;
  const server = await startScriptedOllama({
    models: [{ name: 'big:latest', capabilities: ['completion', 'tools'], contextLength: window }],
    turns: (request) => {
      if (!request.body?.tools?.length) {
        summaries += 1;
        if (failure === 'works') return { text: `SUMMARY ${summaries}: reading notes.txt sixty lines at a time; nothing changed.` };
        if (failure === 'tool call') return { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] };
        if (failure === '500') return { fault: { status: 500 } };
        return { text: '' };
      }
      work += 1;
      if (work > turns) return { text: 'all done' };
      return { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt', offset: ((work * 60) % 1_900) + 1, limit: 60 } }] };
    },
  });
  const started = Date.now();
  const run = await new Promise((resolve) => {
    const child = spawn(
      BEANS,
      ['-p', 'read the notes sixty lines at a time', '-m', 'big:latest', '--max-turns', String(turns + 10), '-o', 'stream-json', '--verbose'],
      {
        cwd: repo.dir,
        env: { ...repo.env, OLLAMA_HOST: server.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => resolve({ code, out }));
  });
  const wall = Date.now() - started;
  await server.close();
  repo.cleanup();
  if (run.code !== 0) throw new Error(`beans exited with ${run.code} (${failure})`);
  const compactions = run.out.split('\n').filter((line) => line.includes('"compact_boundary"')).length;
  const largest = Math.max(...server.requests.filter((r) => r.kind === 'chat').map((r) => r.bytes));
  return { summaries, compactions, largest, wall };
}
