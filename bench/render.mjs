// Render cost of the chat UI: the real `bin/beans chat` in a 120x40 tmux pane streams a 3,000-line
// Markdown answer (headings, lists, inline styles, code blocks, a table) from the scripted Ollama
// server. Prints the time from Enter to the last line on screen, the beans process's peak RSS
// (VmHWM) and CPU time, and how many bytes it wrote to the terminal. Two runs: "burst" (the server
// sends as fast as it can, the worst case for the renderer) and "paced" (a pause of --delay ms
// before each chunk, like a fast model).
// Run: pnpm run build && node bench/render.mjs [--lines 3000] [--chunk 16] [--delay 1]
//      (Node from scripts/toolchain.sh; needs tmux)
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BEANS, tempRepo } from './lib.mjs';
import { startScriptedOllama } from '../test/support/scripted-ollama.ts';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '3000' },
    chunk: { type: 'string', default: '16' },
    delay: { type: 'string', default: '1' },
  },
});
const LINES = Number(values.lines);
const CHUNK = Number(values.chunk);
const END = 'END-OF-ANSWER';

if (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status !== 0) {
  console.error('bench/render.mjs needs tmux.');
  process.exit(1);
}

/** A long answer shaped like real ones: sections of prose, lists, code and a table. */
function answer(lines) {
  const out = [];
  for (let index = 0; out.length < lines - 1; index++) {
    const section = index % 6;
    if (section === 0) out.push(`## Section ${index}: what the **code** does`, '');
    else if (section === 1)
      out.push(
        `The function \`handle${index}\` reads the *input*, checks it, and returns a [result](https://example.com/${index}) the caller can use without further checks.`,
      );
    else if (section === 2) out.push(`- step ${index}: open the file`, `  - then edit line ${index * 3}`, `- step ${index + 1}: run \`npm test\``);
    else if (section === 3)
      out.push('```ts', `export function f${index}(value: number): number {`, `  return value * ${index} + 1; // keep it small`, '}', '```');
    else if (section === 4) out.push('| name | value |', '|------|-------|', `| item${index} | ${index * 7} |`);
    else
      out.push(`> Note ${index}: this paragraph is long enough to wrap at a hundred and twenty columns, because real answers have long sentences in them.`, '');
  }
  out.length = lines - 1;
  out.push(END);
  return out.join('\n');
}

function chunks(text, size) {
  const out = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

const text = answer(LINES);
const socket = `beans-bench-render-${process.pid}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const quote = (value) => `'${value.replace(/'/g, `'\\''`)}'`;

function screen() {
  return tmux('capture-pane', '-p', '-t', 'bench');
}

async function waitFor(predicate, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (predicate(screen())) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The node process of beans: the pane's shell runs `sh bin/beans`, which execs node. */
function beansPid() {
  const panePid = Number(tmux('display-message', '-p', '-t', 'bench', '#{pane_pid}').trim());
  const queue = [panePid];
  while (queue.length) {
    const pid = queue.shift();
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('packages/cli/dist/bundle/main.js')) return pid;
    } catch {
      continue;
    }
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    queue.push(...children);
  }
  throw new Error('beans process not found');
}

const procStatus = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const kb = (status, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
};

async function measure(label, delayMs) {
  const server = await startScriptedOllama({ turns: [{ text: chunks(text, CHUNK), chunkDelayMs: delayMs || undefined }] });
  const repo = tempRepo();
  const pipeFile = path.join(repo.home, 'terminal-output');
  const env = { ...repo.env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  const command = ['env -i', ...Object.entries(env).map(([key, value]) => quote(`${key}=${value}`)), quote(BEANS), 'chat; sleep 600'].join(' ');
  try {
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'bench', '-x', '120', '-y', '40', '-c', repo.dir, command);
    await waitFor((current) => current.includes('Ask anything'), 'the prompt', 20_000);
    const pid = beansPid();
    const idleRssKb = kb(procStatus(pid), 'VmRSS');
    const cpuBefore = cpuSeconds(pid);
    tmux('pipe-pane', '-o', '-t', 'bench', `cat > ${quote(pipeFile)}`);
    tmux('send-keys', '-t', 'bench', '-l', 'write the long answer');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    tmux('send-keys', '-t', 'bench', 'Enter');
    // The first line may scroll away before a capture sees it: watch the bytes sent to the terminal.
    for (const deadline = Date.now() + 20_000; !readFileSync(pipeFile, 'utf8').includes('Section 0:');) {
      if (Date.now() > deadline) throw new Error('the first line never reached the terminal');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const firstLineMs = performance.now() - started;
    await waitFor((current) => current.includes(END) && !current.includes('Working…'), 'the last line', 300_000);
    const finishMs = performance.now() - started;
    const status = procStatus(pid);
    const cpu = cpuSeconds(pid) - cpuBefore;
    tmux('pipe-pane', '-t', 'bench');
    const bytes = statSync(pipeFile).size;
    console.log(`${label}:`);
    console.log(`  first line on screen   ${firstLineMs.toFixed(0)} ms`);
    console.log(`  last line on screen    ${finishMs.toFixed(0)} ms`);
    console.log(`  beans CPU time         ${(cpu * 1000).toFixed(0)} ms`);
    console.log(`  beans peak RSS         ${(kb(status, 'VmHWM') / 1024).toFixed(1)} MiB (idle before the answer: ${(idleRssKb / 1024).toFixed(1)} MiB)`);
    console.log(`  written to terminal    ${(bytes / 1024).toFixed(0)} KiB (${(bytes / text.length).toFixed(2)} bytes per answer byte)`);
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    await server.close();
    repo.cleanup();
  }
}

console.log(`render: ${LINES} lines, ${(text.length / 1024).toFixed(0)} KiB in ${chunks(text, CHUNK).length} chunks of ${CHUNK} chars, 120x40 tmux pane`);
await measure('burst (no pause between chunks)', 0);
await measure(`paced (${values.delay} ms before each chunk)`, Number(values.delay));
