// Start-up benchmarks: `beans --version`, time from process start to the first provider request
// for `beans -p hi` on each provider, and the size of that first request (system prompt + tool
// declarations); then the same with a user plugin, hooks and an MCP server configured (the hooks do
// not fire for `hi`, the server's tools are declared but not called), the server met for the first
// time and met before; then `beans chat` until its prompt is drawn.
// Run: node bench/startup.mjs   (after ./scripts/setup.sh; uses the Node from scripts/toolchain.sh)
import { chosenProviders } from './providers.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { BEANS, fmt, median, runBeans, runCommand, tempRepo, untilDrawn } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 15);
const repo = tempRepo();

// The floor: the same Node starting and doing nothing. Goals are ratios to it (issue 21). Every
// measured run is paired with a floor run just before it, so a busy machine moves both alike.
const floorRun = async () => (await runCommand(process.execPath, ['-e', '0'], { cwd: repo.dir, env: repo.env })).ms;
const ratio = (ms, floors) => `${(median(ms) / median(floors)).toFixed(2)}x its paired floor of ${fmt(median(floors))}`;
const floors = [];
const version = [];
for (let i = 0; i < RUNS; i += 1) {
  floors.push(await floorRun());
  version.push((await runBeans(['--version'], { cwd: repo.dir, env: repo.env })).ms);
}
console.log(`beans --version: median ${fmt(median(version))} (${ratio(version, floors)}; min ${fmt(Math.min(...version))}, ${RUNS} runs)`);

async function firstRequests(label, repo, providers = chosenProviders(), beforeEachRun = () => {}) {
  for (const [provider, spec] of providers) {
    const server = await spec.start({ turns: [{ text: 'hello' }] });
    const env = { ...repo.env, ...spec.env(server.url) };
    const firstRequest = [];
    const total = [];
    const floors = [];
    let bytes = 0;
    let detail = '';
    for (let i = 0; i < RUNS; i += 1) {
      beforeEachRun();
      floors.push(await floorRun());
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
    const name = `${provider.padEnd(9)} ${label}`;
    console.log(`${name}: first request median ${fmt(median(firstRequest))} (${ratio(firstRequest, floors)}), whole run median ${fmt(median(total))}`);
    console.log(`${name}: first request body ${bytes} B (${(bytes / 1024).toFixed(1)} KB): ${detail}`);
    await server.close();
  }
}

/** A user configuration with one plugin (skills with triggers, commands, agents), two hooks and, with `mcp`, an MCP server. */
function configure(repo, { mcp }) {
  const config = path.join(repo.home, '.config', 'beans-agent');
  const plugin = path.join(config, 'plugins', 'team');
  for (let i = 0; i < 3; i += 1) {
    mkdirSync(path.join(plugin, 'skills', `skill-${i}`), { recursive: true });
    writeFileSync(
      path.join(plugin, 'skills', `skill-${i}`, 'SKILL.md'),
      `---\nname: skill-${i}\ndescription: Team skill ${i}\ntriggers:\n  - release notes ${i}\n---\n\nSteps for skill ${i}.\n`,
    );
    mkdirSync(path.join(plugin, 'commands'), { recursive: true });
    writeFileSync(path.join(plugin, 'commands', `command-${i}.md`), `---\ndescription: Team command ${i}\n---\n\nDo $ARGUMENTS.\n`);
    mkdirSync(path.join(plugin, 'agents'), { recursive: true });
    writeFileSync(
      path.join(plugin, 'agents', `agent-${i}.md`),
      `---\nname: agent-${i}\ndescription: Team agent ${i}\ntools: Read, Grep\n---\n\nYou are agent ${i}.\n`,
    );
  }
  const memoryServer = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
  const hook = [{ matcher: 'shell', hooks: [{ type: 'command', command: 'true' }] }];
  const settings = { hooks: { PreToolUse: hook, PostToolUse: hook } };
  if (mcp)
    settings.mcpServers = { memory: { command: process.execPath, args: [memoryServer], env: { MEMORY_FILE_PATH: path.join(repo.home, 'memory.jsonl') } } };
  writeFileSync(path.join(config, 'settings.json'), JSON.stringify(settings));
}

await firstRequests('beans -p hi', repo);
const configured = tempRepo();
configure(configured, { mcp: false });
await firstRequests('plugin + hooks', configured);
// Meeting a server for the first time, the first request waits for its tools, as in Claude Code:
// that server (a Node program) alone needs ~190 ms here to start, so this line measures it as much
// as Beans. Afterwards its tools are remembered: the first request declares them while it starts.
configure(configured, { mcp: true });
const remembered = path.join(configured.env.XDG_STATE_HOME, 'beans-agent', 'mcp-tools');
const forget = () => rmSync(remembered, { recursive: true, force: true });
await firstRequests('plugin + hooks + MCP server met first', configured, chosenProviders().slice(0, 1), forget);
await firstRequests('plugin + hooks + MCP server met before', configured, chosenProviders());
configured.cleanup();

// Interactive start: `beans chat` in a pseudo-terminal until its prompt is drawn.
if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0) {
  const [, spec] = chosenProviders(['ollama'])[0];
  const server = await spec.start({ turns: [{ text: 'hello' }] });
  const drawn = [];
  const floors = [];
  for (let i = 0; i < RUNS; i += 1) {
    floors.push(await floorRun());
    drawn.push(await untilDrawn(BEANS, ['chat'], /Ask anything/, { cwd: repo.dir, env: { ...repo.env, ...spec.env(server.url) } }));
  }
  console.log(`beans chat: prompt drawn in median ${fmt(median(drawn))} (${ratio(drawn, floors)})`);
  await server.close();
} else {
  console.log('beans chat: not measured (needs `script` from util-linux)');
}
repo.cleanup();
