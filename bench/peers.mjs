// Beans beside other terminal assistants, each against the same kind of scripted server on 127.0.0.1:
// time from process start to its first model request for `-p hi`, and that request's size, as medians
// of paired runs (Beans and the peer alternate). Peers are installed from the npm registry into a cache
// folder on first use (pinned versions). Measured here: start to first request
// and its size only; interactive start and long sessions of the peers are not measured yet.
// Run: node bench/peers.mjs   (Node from scripts/toolchain.sh; needs the npm registry the first time)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROVIDERS } from './providers.mjs';
import { fmt, median, runBeans, runCommand, tempRepo } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'beans-bench-peers');
const PACKAGES = ['@google/gemini-cli@0.61.0', '@mariozechner/pi-coding-agent@0.73.1', '@anthropic-ai/claude-code@2.1.330'];
const bin = (name) => path.join(CACHE, 'node_modules', '.bin', name);

if (!existsSync(bin('gemini')) || !existsSync(bin('pi')) || !existsSync(bin('claude'))) {
  console.log(`Installing ${PACKAGES.join(', ')} into ${CACHE} ...`);
  mkdirSync(CACHE, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', CACHE, ...PACKAGES], { stdio: 'inherit' });
}

// Each peer: the provider whose scripted server it talks to, its command line, and the environment
// or files that point it at the server (and skip its first-run questions).
const PEERS = {
  'Gemini CLI': {
    provider: 'gemini',
    command: (home) => [bin('gemini'), '-p', 'hi', '-m', 'gemini-2.5-flash'],
    env: (url) => ({ GEMINI_API_KEY: 'bench', GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    setup: (home) => writeJson(path.join(home, '.gemini', 'settings.json'), { security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true }, privacy: { usageStatisticsEnabled: false } }),
  },
  'Claude Code': {
    provider: 'anthropic',
    command: () => [bin('claude'), '-p', 'hi'],
    env: (url) => ({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
  },
  pi: {
    provider: 'openai',
    command: () => [bin('pi'), '-p', 'hi', '--provider', 'local', '--model', 'm'],
    env: () => ({}),
    setup: (home, url) =>
      writeJson(path.join(home, '.pi', 'agent', 'models.json'), {
        providers: { local: { baseUrl: `${url}/v1`, api: 'openai-completions', apiKey: 'bench', compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }, models: [{ id: 'm' }] } },
      }),
  },
};

function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

/** Start of the process to its first chat request, and that request's size. */
async function firstRequest(server, run) {
  const before = server.requests.length;
  const startedAt = performance.timeOrigin + performance.now();
  const result = await run();
  const chat = server.requests.slice(before).find((request) => request.kind === 'chat');
  if (!chat) throw new Error(`no chat request (exit ${result.code}): ${result.stderr.slice(0, 500)}`);
  return { ms: chat.time - startedAt, bytes: chat.bytes };
}

const repo = tempRepo();
const rows = [];
for (const [name, peer] of Object.entries(PEERS)) {
  const spec = PROVIDERS[peer.provider];
  const server = await spec.start({ turns: [{ text: 'hello' }] });
  peer.setup?.(repo.home, server.url);
  const [command, ...args] = peer.command(repo.home);
  const beans = [];
  const other = [];
  for (let i = 0; i < RUNS; i += 1) {
    beans.push(await firstRequest(server, () => runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, ...spec.env(server.url) } })));
    other.push(await firstRequest(server, () => runCommand(command, args, { cwd: repo.dir, env: { ...repo.env, ...peer.env(server.url) } })));
  }
  await server.close();
  rows.push({ name, provider: peer.provider, beans, other });
}
repo.cleanup();

const pad = (text, width) => String(text).padEnd(width);
console.log(`${pad('peer', 13)}${pad('provider', 11)}${pad('first request', 16)}${pad('Beans', 12)}${pad('ratio', 9)}${pad('request size', 15)}Beans`);
for (const { name, provider, beans, other } of rows) {
  const peerMs = median(other.map((r) => r.ms));
  const beansMs = median(beans.map((r) => r.ms));
  console.log(`${pad(name, 13)}${pad(provider, 11)}${pad(fmt(peerMs), 16)}${pad(fmt(beansMs), 12)}${pad(`${(peerMs / beansMs).toFixed(1)}x`, 9)}${pad(`${(other[0].bytes / 1024).toFixed(1)} KB`, 15)}${(beans[0].bytes / 1024).toFixed(1)} KB`);
}
console.log(`\nMedians of ${RUNS} paired runs; ratio = the peer's time over Beans' time to the first request.`);
