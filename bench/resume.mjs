// Resume benchmark: load time and memory for a 2,000-message session, and `sessions list` with 200
// sessions. Run: pnpm exec tsc -b packages/core && node bench/resume.mjs
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { SessionStore, repairHistory, convertToLlm } from '../packages/core/dist/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const MESSAGES = Number(process.env.MESSAGES ?? 2000);
const SESSIONS = Number(process.env.SESSIONS ?? 200);
const RUNS = 5;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (value) => `${value.toFixed(1)} ms`;

// Deterministic "random" so every run writes the same session.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const words = 'the parser token file test build error function return value module import config session tool result line change'.split(' ');
const prose = (chars) => {
  let out = '';
  while (out.length < chars) out += `${words[Math.floor(rand() * words.length)]} `;
  return out.slice(0, chars);
};
const code = (lines) =>
  Array.from({ length: lines }, (_, i) => `${i + 1}\t  const ${words[i % words.length]}${i} = compute(${prose(30 + Math.floor(rand() * 50))});`).join('\n');

let clock = Date.now() - MESSAGES * 1000;
let callId = 0;

/** One exchange: a prompt, tool rounds with results of realistic size, a final answer. */
function* exchange() {
  yield { role: 'user', content: prose(80 + Math.floor(rand() * 400)), origin: 'prompt', timestamp: clock++ };
  const rounds = 1 + Math.floor(rand() * 4);
  for (let r = 0; r < rounds; r++) {
    const calls = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
      const kind = ['read_file', 'shell', 'grep', 'edit_file'][Math.floor(rand() * 4)];
      return {
        id: `call_${callId++}`,
        name: kind,
        arguments: kind === 'shell' ? { command: 'npm test -- --run' } : { path: `src/${words[Math.floor(rand() * words.length)]}.ts`, pattern: 'export' },
      };
    });
    yield {
      role: 'assistant',
      content: prose(Math.floor(rand() * 300)),
      toolCalls: calls,
      stopReason: 'tool_use',
      usage: { inputTokens: 12000, outputTokens: 300, costUsd: 0.002 },
      model: 'bench',
      provider: 'ollama',
      timestamp: clock++,
    };
    for (const call of calls) {
      const content =
        call.name === 'read_file'
          ? code(80 + Math.floor(rand() * 200))
          : call.name === 'shell'
            ? `exit code 0\n${prose(1500 + Math.floor(rand() * 3000))}`
            : call.name === 'grep'
              ? code(10 + Math.floor(rand() * 30))
              : 'Edited src/file.ts: 3 lines changed.';
      const details = call.name === 'edit_file' ? { kind: 'diff', path: 'src/file.ts', diff: code(12), added: 3, removed: 2 } : undefined;
      yield { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: false, status: 'ok', details, timestamp: clock++ };
    }
  }
  yield {
    role: 'assistant',
    content: prose(300 + Math.floor(rand() * 1200)),
    toolCalls: [],
    stopReason: 'stop',
    usage: { inputTokens: 15000, outputTokens: 600, costUsd: 0.004 },
    timestamp: clock++,
  };
}

function writeSession(store, count) {
  const writer = store.create({ cwd: '/work/repo', workspaceRoot: '/work/repo', provider: 'ollama', model: 'qwen3' });
  let written = 0;
  while (written < count) {
    for (const message of exchange()) {
      if (written === count) break;
      writer.append(message);
      written++;
    }
  }
  writer.close();
  return writer.id;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-resume-'));
try {
  const store = new SessionStore(dir);

  let started = performance.now();
  const bigId = writeSession(store, MESSAGES);
  const writeMs = performance.now() - started;
  const bytes = statSync(store.pathOf(bigId)).size;
  console.log(
    `session of ${MESSAGES} messages       ${mb(bytes)} on disk; written in ${ms(writeMs)} (${((writeMs * 1000) / MESSAGES).toFixed(0)} µs per append)`,
  );

  const loadTimes = [];
  let loaded;
  for (let i = 0; i < RUNS; i++) {
    loaded = undefined;
    gc();
    started = performance.now();
    loaded = store.load(bigId);
    const history = repairHistory(loaded.messages);
    convertToLlm(history);
    loadTimes.push(performance.now() - started);
  }
  console.log(`load + repair + convert         median ${ms(median(loadTimes))} (min ${ms(Math.min(...loadTimes))}, ${RUNS} runs)`);

  loaded = undefined;
  gc();
  const before = process.memoryUsage();
  const kept = store.load(bigId);
  const keptHistory = repairHistory(kept.messages);
  gc();
  const after = process.memoryUsage();
  console.log(
    `memory held by the loaded session  heap +${mb(after.heapUsed - before.heapUsed)}, RSS +${mb(after.rss - before.rss)} (${keptHistory.length} messages)`,
  );

  for (let i = 1; i < SESSIONS; i++) writeSession(store, 20 + Math.floor(rand() * 80));
  const totalBytes = store.list().reduce((sum, s) => sum + statSync(s.path).size, 0);
  const listTimes = [];
  let count = 0;
  for (let i = 0; i < RUNS; i++) {
    started = performance.now();
    count = store.list().length;
    listTimes.push(performance.now() - started);
  }
  console.log(`list() of ${count} sessions (${mb(totalBytes)})   median ${ms(median(listTimes))} (min ${ms(Math.min(...listTimes))}, ${RUNS} runs)`);

  const newestTimes = [];
  for (let i = 0; i < RUNS; i++) {
    started = performance.now();
    store.newest();
    newestTimes.push(performance.now() - started);
  }
  console.log(`newest() (what --continue uses)  median ${ms(median(newestTimes))}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
