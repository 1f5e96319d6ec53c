// `beans acp` start-up: time from process start to the `initialize` answer, next to `beans --version`
// run the same number of times, alternately (a busy machine moves both alike). The goal (issue 29):
// within 2x of --version. Then the first `session/new` after it (core loads there, not before).
// Run: node bench/acp.mjs   (after ./scripts/setup.sh; uses the Node from scripts/toolchain.sh)
import { spawn } from 'node:child_process';
import { BEANS, fmt, median, runBeans, tempRepo } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const repo = tempRepo();
// A provider that needs no server for session/new: a configured model skips any lookup.
const env = { ...repo.env, OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };

/** Starts `beans acp`, sends initialize then session/new; resolves with the two answer times (ms from spawn). */
function acpRun() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(BEANS, ['acp'], { cwd: repo.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const since = () => Number(process.hrtime.bigint() - started) / 1e6;
    const times = {};
    let buffered = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.id === 1) {
          times.initialize = since();
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: repo.dir, mcpServers: [] } })}\n`);
        } else if (message.id === 2) {
          if (message.error) reject(new Error(`session/new failed: ${JSON.stringify(message.error)}\n${stderr}`));
          times.sessionNew = since();
          child.stdin.end();
        }
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`beans acp did not answer within 30 s: ${stderr}`));
    }, 30_000);
    child.on('error', reject);
    child.on('close', () => clearTimeout(timer) || (times.sessionNew ? resolve(times) : reject(new Error(`beans acp ended early: ${stderr}`))));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  });
}

const version = [];
const initialize = [];
const sessionNew = [];
for (let i = 0; i < RUNS; i += 1) {
  version.push((await runBeans(['--version'], { cwd: repo.dir, env: repo.env })).ms);
  const times = await acpRun();
  initialize.push(times.initialize);
  sessionNew.push(times.sessionNew);
}
const ratio = median(initialize) / median(version);
console.log(`beans --version: median ${fmt(median(version))} (min ${fmt(Math.min(...version))}, ${RUNS} runs)`);
console.log(
  `beans acp initialize answered: median ${fmt(median(initialize))} (min ${fmt(Math.min(...initialize))}), ${ratio.toFixed(2)}x --version (goal <= 2x)`,
);
console.log(`beans acp first session/new answered: median ${fmt(median(sessionNew))} after start`);
repo.cleanup();
if (ratio > 2) process.exitCode = 1;
