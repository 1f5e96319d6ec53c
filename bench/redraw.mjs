// Redraw benchmark (issue 59 item 3), the real `bin/beans chat` in a 120x40 tmux pane against the
// scripted Ollama server: after an answer of N lines (30 and 3,000), the window goes to 100 columns;
// prints the time from the resize until the screen stops changing (150 ms quiet) and the bytes beans
// wrote meanwhile. Then `beans -r <id>` of a 2,000-message session: time until the screen settles
// with the prompt, the time the prompt first shows, and the bytes written. Run: pnpm run build && node bench/redraw.mjs
//      (Node from scripts/toolchain.sh; needs tmux)
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { sessionsDir } from '../packages/core/dist/config/paths.js';
import { SessionStore } from '../packages/core/dist/index.js';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';
import { BEANS, tempRepo } from './lib.mjs';

if (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status !== 0) {
  console.error('bench/redraw.mjs needs tmux.');
  process.exit(1);
}

const quote = (value) => `'${String(value).replace(/'/g, `'\\''`)}'`;
let panes = 0;

/** bin/beans in a detached 120x40 pane of its own tmux server. */
function pane(repo, env, args) {
  const socket = `beans-bench-redraw-${process.pid}-${++panes}`;
  const tmux = (...rest) => execFileSync('tmux', ['-L', socket, ...rest], { encoding: 'utf8' });
  const all = { ...repo.env, ...env, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  const command = ['env -i', ...Object.entries(all).map(([key, value]) => quote(`${key}=${value}`)), quote(BEANS), ...args.map(quote), '; sleep 600'].join(' ');
  tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '120', '-y', '40', '-c', repo.dir, command);
  const visible = () => tmux('capture-pane', '-p', '-t', 'bench');
  return {
    visible,
    screen: () => tmux('capture-pane', '-p', '-J', '-S', '-1000', '-t', 'bench'),
    type: (text) => tmux('send-keys', '-t', 'bench', '-l', text),
    press: (key) => tmux('send-keys', '-t', 'bench', key),
    resize: (columns, rows) => tmux('resize-window', '-t', 'bench', '-x', String(columns), '-y', String(rows)),
    pipeOutput: (file) => tmux('pipe-pane', '-t', 'bench', `cat >> ${quote(file)}`),
    stopPipe: () => tmux('pipe-pane', '-t', 'bench'),
    async waitFor(predicate, what, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(this.screen())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${visible()}`);
        await sleep(20);
      }
    },
    kill: () => spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' }),
  };
}

const QUIET_MS = 150;
const RUNS = Number(process.env.RUNS ?? 3);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the pane until it has not changed for QUIET_MS; returns when it last changed, after `from`. */
async function settledAt(session, from) {
  let last = session.visible();
  let changed = from;
  for (;;) {
    await sleep(10);
    const now = session.visible();
    if (now !== last) [last, changed] = [now, Date.now()];
    else if (Date.now() - changed >= QUIET_MS) return changed;
  }
}

const answer = (lines) =>
  Array.from({ length: lines }, (_, i) => (i % 10 === 0 ? `## Part ${i}` : `Line ${i}: the function reads the *input*, checks it and returns a value.`)).join(
    '\n',
  ) + '\nEND-OF-ANSWER';

async function resizeRun(lines) {
  const server = await startScriptedOllama({ turns: [{ text: answer(lines) }] });
  const workspace = tempRepo();
  const session = pane(workspace, { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, ['chat']);
  try {
    await session.waitFor((screen) => screen.includes('Ask anything'), 'the prompt', 30_000);
    session.type('write it');
    await sleep(100);
    session.press('Enter');
    await session.waitFor((screen) => screen.includes('END-OF-ANSWER') && !screen.includes('Working…'), 'the answer', 120_000);
    await settledAt(session, Date.now());
    const file = path.join(workspace.home, 'pipe.out');
    writeFileSync(file, '');
    session.pipeOutput(file);
    const started = Date.now();
    session.resize(100, 40);
    const at = await settledAt(session, started);
    session.stopPipe();
    return { ms: at - started, bytes: statSync(file).size };
  } finally {
    session.kill();
    await server.close();
    workspace.cleanup();
  }
}

/** A stored session of `count` messages: prompts and Markdown answers of ~12 lines. */
function writeLongSession(workspace, count) {
  const store = new SessionStore(sessionsDir(workspace.env, workspace.dir));
  const writer = store.create({ cwd: workspace.dir, workspaceRoot: workspace.dir, provider: 'ollama', model: 'scripted:latest' });
  let clock = Date.now() - count * 1000;
  for (let i = 0; i < count; i += 2) {
    writer.append({ role: 'user', content: `question ${i / 2}: what does part ${i} do?`, origin: 'prompt', timestamp: clock++ });
    const text = Array.from({ length: 12 }, (_, line) => `- point ${line} of answer ${i / 2}: it reads the **input** and returns a value`).join('\n');
    writer.append({ role: 'assistant', content: text, toolCalls: [], stopReason: 'stop', usage: { inputTokens: 100, outputTokens: 50 }, timestamp: clock++ });
  }
  writer.close();
  return writer.id;
}

async function resumeRun(count) {
  const server = await startScriptedOllama({ turns: [{ text: 'ok' }] });
  const workspace = tempRepo();
  const id = count > 0 ? writeLongSession(workspace, count) : undefined;
  const file = path.join(workspace.home, 'pipe.out');
  writeFileSync(file, '');
  const started = Date.now();
  const session = pane(workspace, { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama' }, id ? ['chat', '-r', id] : ['chat']);
  try {
    session.pipeOutput(file);
    // From the start: the time the screen last changed before it stayed still with the prompt and the newest answer.
    let last = '';
    let changed = started;
    let prompt;
    for (const deadline = started + 120_000; ;) {
      const now = session.visible();
      // When the input box is first there to type into (the first frame draws it before the session is read).
      if (prompt === undefined && now.includes('Ask anything')) prompt = Date.now() - started;
      if (now !== last) [last, changed] = [now, Date.now()];
      else if (
        Date.now() - changed >= QUIET_MS &&
        now.includes('Ask anything') &&
        (count === 0 ? now.includes('beans ·') : now.includes(`answer ${count / 2 - 1}`))
      )
        break;
      if (Date.now() > deadline) throw new Error(`the resumed session did not settle:\n${now}`);
      await sleep(10);
    }
    const at = changed;
    session.stopPipe();
    return { ms: at - started, prompt, bytes: statSync(file).size };
  } finally {
    session.kill();
    await server.close();
    workspace.cleanup();
  }
}

for (const lines of [30, 3000]) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await resizeRun(lines));
  console.log(
    `resize 120 -> 100 columns after a ${String(lines).padStart(4)}-line answer: settles in median ${median(runs.map((r) => r.ms))} ms (${runs.map((r) => r.ms).join(', ')}), writes ${median(runs.map((r) => r.bytes))} bytes`,
  );
}
const fresh = [];
for (let i = 0; i < RUNS; i++) fresh.push(await resumeRun(0));
console.log(
  `beans chat, a new session (for comparison): prompt shown in median ${median(fresh.map((r) => r.prompt))} ms (${fresh.map((r) => r.prompt).join(', ')}), screen settled in median ${median(fresh.map((r) => r.ms))} ms (${fresh.map((r) => r.ms).join(', ')})`,
);
const resumes = [];
for (let i = 0; i < RUNS; i++) resumes.push(await resumeRun(2000));
console.log(
  `beans -r of a 2,000-message session: prompt shown in median ${median(resumes.map((r) => r.prompt))} ms (${resumes.map((r) => r.prompt).join(', ')}), screen settled with the newest answer in median ${median(resumes.map((r) => r.ms))} ms (${resumes.map((r) => r.ms).join(', ')}), ${median(resumes.map((r) => r.bytes))} bytes written`,
);
