// The local provider (issue 45): for the tiny random GGUF the tests use, and for the default model
// (Qwen3 1.7B) when it has been pulled on this machine, in fresh processes:
// - load: from process start to the model loaded (node-llama-cpp imported, its binding started, the
//   file checked and mapped, the context made), via the client's resolveModel();
// - first token: from the request to the first streamed text, for a short prompt;
// - tokens/s: generation speed over the rest of the reply.
// Run: node bench/local.mjs   (after ./scripts/setup.sh; RUNS=5 by default; THREADS sets local.threads)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, median, ROOT } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const THREADS = process.env.THREADS ? Number(process.env.THREADS) : undefined;
const core = pathToFileURL(path.join(ROOT, 'packages/core/dist/index.js')).href;

if (process.argv[2] === '--one') {
  // One measurement in this (fresh) process; prints a JSON line.
  const started = performance.now();
  const { createClient } = await import(core);
  const settings = { gpu: 'off', contextSize: 2048, ...(THREADS ? { threads: THREADS } : {}), seed: 1 };
  const client = await createClient('local', { model: process.argv[3], settings });
  const resolved = await client.resolveModel();
  if ('failure' in resolved) {
    console.log(JSON.stringify({ error: resolved.failure.message }));
    process.exit(0);
  }
  const loadMs = performance.now() - started;
  const asked = performance.now();
  let firstMs;
  let done;
  for await (const event of client.chatStream({
    model: resolved.model,
    system: 'You are a helpful assistant.',
    messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
    maxOutputTokens: 32,
  })) {
    if (event.type === 'text_delta' && firstMs === undefined) firstMs = performance.now() - asked;
    if (event.type === 'done' || event.type === 'error') done = event;
  }
  const totalMs = performance.now() - asked;
  const tokens = done?.usage?.outputTokens ?? 0;
  const genMs = totalMs - (firstMs ?? totalMs);
  console.log(
    JSON.stringify({
      loadMs,
      firstMs,
      tokens,
      tokensPerSecond: tokens > 1 && genMs > 0 ? ((tokens - 1) * 1000) / genMs : undefined,
      error: done?.type === 'error' ? done.failure.message : undefined,
    }),
  );
  process.exit(0);
}

function measure(label, file) {
  const rows = [];
  for (let i = 0; i < RUNS; i += 1) {
    const child = spawnSync(process.execPath, [import.meta.filename, '--one', file], { encoding: 'utf8', env: process.env });
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    let row;
    try {
      row = JSON.parse(line);
    } catch {
      console.log(`${label}: the run failed: ${child.stderr.trim().split('\n').at(-1)}`);
      return;
    }
    if (row.error) {
      console.log(`${label}: ${row.error}`);
      return;
    }
    rows.push(row);
  }
  const speeds = rows.map((r) => r.tokensPerSecond).filter((v) => v !== undefined);
  console.log(
    `${label}: load median ${fmt(median(rows.map((r) => r.loadMs)))}, first token median ${fmt(median(rows.map((r) => r.firstMs ?? NaN)))}` +
      (speeds.length ? `, ${median(speeds).toFixed(0)} tokens/s` : '') +
      ` (${RUNS} fresh processes, CPU${THREADS ? `, ${THREADS} thread(s)` : ''})`,
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-local-'));
try {
  const { writeTinyModel } = await import(pathToFileURL(path.join(ROOT, 'test/support/gguf.ts')).href);
  const tiny = writeTinyModel(path.join(dir, 'tiny.gguf'));
  measure('tiny random model (470 KB)', tiny);
  const { resolveLocalModel, DEFAULT_LOCAL_MODEL } = await import(core);
  const pulled = resolveLocalModel(undefined);
  if ('file' in pulled) measure(`default model ${DEFAULT_LOCAL_MODEL}`, pulled.file);
  else console.log(`default model ${DEFAULT_LOCAL_MODEL}: skipped, not pulled on this machine (\`beans models pull\` fetches it).`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
