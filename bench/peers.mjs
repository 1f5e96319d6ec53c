// Beans beside other terminal assistants (issue 21), each against the same kind of scripted server on
// 127.0.0.1, as medians of paired runs (Beans and the peer alternate, Beans on the peer's provider):
// - first request: process start to the first model request for `-p hi`, and that request's size;
// - interactive start: spawn to the input prompt drawn in a 120x40 pseudo-terminal;
// - session: `-p go` answered with 199 calls of the program's own read tool, each on a different small
//   file, then a text: wall time and peak RSS of the process tree, and the cost of each turn past the
//   20th ((t200 - t20) / 180, as bench/loop.mjs), so start-up drops out. Every run must send 200
//   requests and the last must hold all 199 files, or the bench fails (exit 1). A peer that cannot
//   reach its prompt says so in its row instead.
// Peers are installed from the npm registry into a cache folder on first use (pinned versions).
// Run: node bench/peers.mjs   (Node from scripts/toolchain.sh; needs the npm registry the first time)
// Env: PEERS=gemini,claude,pi  PARTS=first,interactive,session  RUNS=5 (start-up parts)  SESSION_RUNS=3
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROVIDERS } from './providers.mjs';
import { BEANS, median, runBeans, runCommand, tempRepo, untilDrawn } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 5);
const SESSION_RUNS = Number(process.env.SESSION_RUNS ?? 3);
const TURNS = 200;
const SHORT = 20;
const PARTS = (process.env.PARTS ?? 'first,interactive,session').split(',');
const CACHE = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'beans-bench-peers');
const PACKAGES = ['@google/gemini-cli@0.61.0', '@mariozechner/pi-coding-agent@0.73.1', '@anthropic-ai/claude-code@2.1.330'];
const bin = (name) => path.join(CACHE, 'node_modules', '.bin', name);

if (!existsSync(bin('gemini')) || !existsSync(bin('pi')) || !existsSync(bin('claude'))) {
  console.log(`Installing ${PACKAGES.join(', ')} into ${CACHE} ...`);
  mkdirSync(CACHE, { recursive: true });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', CACHE, ...PACKAGES], { stdio: 'inherit' });
}

// Each peer: the provider whose scripted server it talks to; its command line, one-shot with a prompt
// or interactive without; the environment and files that point it at the server and skip its
// first-run questions; what its drawn, ready input prompt looks like; and a call of its read tool
// (parameter names from its tool declarations).
const PEERS = {
  gemini: {
    name: 'Gemini CLI',
    provider: 'gemini',
    command: (prompt) => [bin('gemini'), '-m', 'gemini-2.5-flash', ...(prompt ? ['-p', prompt] : [])],
    env: (url) => ({ GEMINI_API_KEY: 'bench', GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_TRUST_WORKSPACE: 'true' }),
    setup: (home) => {
      writeJson(path.join(home, '.gemini', 'settings.json'), {
        security: { auth: { selectedType: 'gemini-api-key' } },
        general: { disableAutoUpdate: true },
        privacy: { usageStatisticsEnabled: false },
      });
      // About one run in four exits with its project registry still locked; the next start within 10 s
      // then waits 12.7 s for the lock to go stale. Runs here come seconds apart, a user's seldom do.
      rmSync(path.join(home, '.gemini', 'projects.json.lock'), { recursive: true, force: true });
    },
    prompt: /Type your message/, // the input box's placeholder
    read: (file) => ({ name: 'read_file', args: { file_path: file } }),
  },
  claude: {
    name: 'Claude Code',
    provider: 'anthropic',
    command: (prompt) => [bin('claude'), ...(prompt ? ['-p', prompt, '--allowedTools', 'Read'] : [])],
    env: (url) => ({ ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: url, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
    // Onboarding done (else it tries api.anthropic.com), the key's last 20 characters approved, the folder trusted.
    setup: (home, url, dir) =>
      writeJson(path.join(home, '.claude.json'), {
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: { approved: ['bench'], rejected: [] },
        projects: { [dir]: { hasTrustDialogAccepted: true } },
      }),
    // The input line: ❯, a no-break space and the cursor (inverse video); the trust dialog's ❯ points at a menu item.
    prompt: /❯\u00a0\x1b\[7m/,
    read: (file) => ({ name: 'Read', args: { file_path: file } }),
  },
  pi: {
    name: 'pi',
    provider: 'openai',
    command: (prompt) => [bin('pi'), '--provider', 'local', '--model', 'm', ...(prompt ? ['-p', prompt] : [])],
    env: () => ({ PI_OFFLINE: '1' }), // else it fetches fd from GitHub and checks for updates at start
    setup: (home, url) =>
      writeJson(path.join(home, '.pi', 'agent', 'models.json'), {
        providers: {
          local: {
            baseUrl: `${url}/v1`,
            api: 'openai-completions',
            apiKey: 'bench',
            compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
            models: [{ id: 'm' }],
          },
        },
      }),
    prompt: /0\.0%\//, // the footer's context use, drawn in the same frame as the editor above it (which has no placeholder)
    read: (file) => ({ name: 'read', args: { path: file } }),
  },
};
const BEANS_READ = (file) => ({ name: 'read_file', args: { path: file } });
const chosen = process.env.PEERS?.split(',') ?? Object.keys(PEERS);
const unknown = chosen.filter((key) => !Object.hasOwn(PEERS, key));
if (unknown.length > 0) throw new Error(`Unknown peer ${unknown.join(', ')}: choose from ${Object.keys(PEERS).join(', ')}.`);

function writeJson(file, value) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

const repo = tempRepo();
// The files the sessions read, one per tool turn: different calls, so no loop detection steps in.
// Written just before the sessions: Gemini CLI's first request lists the folder.
const files = Array.from({ length: TURNS - 1 }, (_, n) => path.join(repo.dir, 'notes', `${n}.txt`));
function writeNotes() {
  mkdirSync(path.join(repo.dir, 'notes'));
  files.forEach((file, n) => writeFileSync(file, Array.from({ length: 10 }, (_, line) => `file ${n} line ${line + 1}: hello\n`).join('')));
}

/** A scripted server for Beans (peer undefined) or a peer, with the peer's files pointing at it. */
async function start(peer, provider, turns) {
  const server = await PROVIDERS[provider].start({ turns });
  peer?.setup?.(repo.home, server.url, repo.dir);
  return server;
}

const envFor = (peer, provider, url) => ({ ...repo.env, ...(peer ? peer.env(url) : PROVIDERS[provider].env(url)) });

/** Runs Beans or a peer one-shot on `prompt`; the peak RSS counts the whole process tree. */
function run(peer, provider, url, prompt, beansOptions = []) {
  const options = { cwd: repo.dir, env: envFor(peer, provider, url), tree: true };
  if (!peer) return runBeans(['-p', prompt, ...beansOptions], options);
  const [command, ...args] = peer.command(prompt);
  return runCommand(command, args, options);
}

/** Process start to its first chat request, and that request's size. */
async function firstRequest(peer, provider) {
  const server = await start(peer, provider, [{ text: 'hello' }]);
  const startedAt = performance.timeOrigin + performance.now();
  const result = await run(peer, provider, server.url, 'hi');
  await server.close();
  const chat = server.requests.find((request) => request.kind === 'chat');
  if (!chat) throw new Error(`${peer?.name ?? 'Beans'}: no chat request (exit ${result.code}): ${result.stderr.slice(0, 500)}`);
  return { ms: chat.time - startedAt, kb: chat.bytes / 1024 };
}

/** Spawn to the input prompt drawn. */
async function interactive(peer, provider) {
  const server = await start(peer, provider, [{ text: 'hello' }]);
  const [command, ...args] = peer ? peer.command() : [BEANS, 'chat'];
  try {
    return { ms: await untilDrawn(command, args, peer?.prompt ?? /Ask anything/, { cwd: repo.dir, env: envFor(peer, provider, server.url) }) };
  } finally {
    await server.close();
  }
}

// Gemini CLI asks a model every 5-15 turns past the 30th whether the session is stuck (its loop
// detection, on the same server). A model would say no to reads of different files; so does the script.
const isLoopCheck = (request) => JSON.stringify(request.body?.generationConfig ?? {}).includes('unproductive_state_confidence');
const NOT_STUCK = JSON.stringify({ unproductive_state_analysis: 'Each call reads a different file.', unproductive_state_confidence: 0 });

/** A `turns`-request session: turns - 1 reads, then an answer. Small token counts keep everyone from compacting. */
async function session(peer, provider, turns) {
  const read = peer?.read ?? BEANS_READ;
  const server = await start(peer, provider, (request, n) =>
    isLoopCheck(request) ? { text: NOT_STUCK } : n < turns - 1 ? { toolCalls: [read(files[n])], usage: { input: 100, output: 10 } } : { text: 'all done' },
  );
  const result = await run(peer, provider, server.url, 'go', ['--max-turns', String(turns + 5)]); // the peers have no turn limit by default
  await server.close();
  const chats = server.requests.filter((request) => request.kind === 'chat' && !isLoopCheck(request));
  const last = JSON.stringify(chats.at(-1)?.body ?? '');
  const missing = files.slice(0, turns - 1).filter((_, n) => !last.includes(`file ${n} line 10: hello`)).length;
  if (result.code !== 0 || chats.length !== turns || missing > 0) {
    throw new Error(
      `${peer?.name ?? 'Beans'}: exit ${result.code}, ${chats.length} model requests of ${turns}, ${missing} of ${turns - 1} reads missing from the last: ${result.stderr.slice(0, 500)}`,
    );
  }
  return { ms: result.ms, mb: result.peakKb / 1024, checks: server.requests.length - chats.length };
}

/** `runs` paired runs of `measure` (Beans first, then the peer): both lists, or the error that stopped them. */
async function paired(runs, measure, peer, ...args) {
  const beans = [];
  const other = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      beans.push(await measure(undefined, peer.provider, ...args));
      other.push(await measure(peer, peer.provider, ...args));
    }
    return { beans, other };
  } catch (error) {
    return { error: error.message };
  }
}

const rows = chosen.map((key) => ({ peer: PEERS[key] }));
if (PARTS.includes('first')) for (const row of rows) row.first = await paired(RUNS, firstRequest, row.peer);
if (PARTS.includes('interactive')) for (const row of rows) row.interactive = await paired(RUNS, interactive, row.peer);
if (PARTS.includes('session')) {
  writeNotes();
  for (const row of rows) {
    row.short = await paired(SESSION_RUNS, session, row.peer, SHORT);
    row.long = await paired(SESSION_RUNS, session, row.peer, TURNS);
    const error = row.short.error ?? row.long.error;
    const perTurn = (side) => (median(row.long[side].map((r) => r.ms)) - median(row.short[side].map((r) => r.ms))) / (TURNS - SHORT);
    row.perTurn = error ? { error } : { beans: [perTurn('beans')], other: [perTurn('other')] };
  }
}
repo.cleanup();

// One line per peer and one for Beans on its provider; each peer cell carries its ratio to Beans.
const COLUMNS = [
  { title: 'start→1st request', part: 'first', unit: 'ms', of: (run) => run.ms },
  { title: '1st request size', part: 'first', unit: 'KB', of: (run) => run.kb },
  { title: 'interactive start', part: 'interactive', unit: 'ms', of: (run) => run.ms },
  { title: `${TURNS}-turn session`, part: 'long', unit: 's', of: (run) => run.ms / 1000 },
  { title: `per turn past ${SHORT}th`, part: 'perTurn', unit: 'ms', of: (ms) => ms },
  { title: 'peak RSS (tree)', part: 'long', unit: 'MiB', of: (run) => run.mb },
];
const number = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const errors = new Set();
const cell = (row, side, { part, unit, of }) => {
  const result = row[part];
  if (!result) return '-';
  if (result.error) {
    errors.add(result.error);
    // A peer that cannot reach its prompt is a finding; any other failure means the bench is broken.
    if (part !== 'interactive') process.exitCode = 1;
    return side === 'beans' ? '-' : part === 'interactive' ? 'no prompt (below)' : 'failed (below)';
  }
  const value = median(result[side].map(of));
  return side === 'beans' ? `${number(value)} ${unit}` : `${number(value)} ${unit} ${(value / median(result.beans.map(of))).toFixed(1)}x`;
};
const widths = [22, ...COLUMNS.map(({ title }) => Math.max(title.length, 16) + 2)];
const line = (texts) =>
  console.log(
    texts
      .map((text, i) => String(text).padEnd(widths[i]))
      .join('')
      .trimEnd(),
  );
line(['', ...COLUMNS.map(({ title }) => title)]);
for (const row of rows) {
  line([row.peer.name, ...COLUMNS.map((column) => cell(row, 'other', column))]);
  line([`  Beans (${row.peer.provider})`, ...COLUMNS.map((column) => cell(row, 'beans', column))]);
}
console.log(`\nMedians of ${RUNS} paired runs (${SESSION_RUNS} for the sessions); a peer's ratio is its value over Beans' beside it.`);
console.log(
  'Peak RSS: the summed RSS of the process tree, sampled every 20 ms. Gemini CLI is two Node processes: the first relaunches it with a bigger heap and stays.',
);
const gemini = rows.find((row) => row.peer === PEERS.gemini)?.long?.other;
if (gemini) console.log(`Gemini CLI also sent ${gemini[0].checks} loop-detection requests in each ${TURNS}-turn session, within its time.`);
for (const error of errors) console.log(`\n${error}`);
