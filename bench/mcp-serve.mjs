// `beans mcp serve` as an MCP client sees it (the official client, as Claude Desktop or Codex would
// use it): spawn to `initialize` answered and to `tools/list` answered (stdio, and HTTP from spawn to
// the printed line), then the latency of a read_file call (a 40-line file) once the server runs, and of
// an `agent` call whose scripted model answers at once, and how long a client's cancel takes to stop an
// agent run mid-answer (until its session file records the interruption).
// Run: node bench/mcp-serve.mjs   (after `pnpm run build`; Node from scripts/toolchain.sh)
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startScriptedOpenAi } from '../test/support/scripted-openai.ts';
import { BEANS, fmt, median, tempRepo } from './lib.mjs';

const RUNS = Number(process.env.RUNS ?? 7);
const CALLS = Number(process.env.CALLS ?? 50);
const repo = tempRepo();
writeFileSync(path.join(repo.dir, 'notes.txt'), Array.from({ length: 40 }, (_, n) => `line ${n + 1} of the notes\n`).join(''));
const slow = (request) => JSON.stringify(request.body?.messages ?? []).includes('slow');
const server = await startScriptedOpenAi({
  turns: (request) => (slow(request) ? { text: Array.from({ length: 80 }, (_, n) => `piece ${n} `), chunkDelayMs: 100 } : { text: 'Done.' }),
});
const env = { ...repo.env, OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `${server.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const line = (label, values) => console.log(`${label}: median ${fmt(median(values))} (p95 ${fmt(percentile(values, 0.95))}, ${values.length} samples)`);

async function stdioStart() {
  const started = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: BEANS, args: ['mcp', 'serve'], cwd: repo.dir, env, stderr: 'ignore' }));
  const initialized = performance.now() - started;
  await client.listTools();
  return { client, initialized, listed: performance.now() - started };
}

async function httpStart() {
  const started = performance.now();
  const child = spawn(BEANS, ['mcp', 'serve', '--http', '0'], { cwd: repo.dir, env, stdio: ['ignore', 'pipe', 'ignore'] });
  const [url, token] = await new Promise((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /on (\S+)#token=(\S+)/.exec(out);
      if (match) resolve([match[1], match[2]]);
    });
  });
  const printed = performance.now() - started;
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  await client.listTools();
  return { client, child, printed, listed: performance.now() - started };
}

async function timeCalls(client, call, count) {
  const times = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const result = await call();
    times.push(performance.now() - started);
    if (result.isError) throw new Error(JSON.stringify(result));
  }
  return times;
}

const stdio = { initialized: [], listed: [] };
for (let i = 0; i < RUNS; i += 1) {
  const run = await stdioStart();
  stdio.initialized.push(run.initialized);
  stdio.listed.push(run.listed);
  await run.client.close();
}
line('stdio: spawn to initialize answered', stdio.initialized);
line('stdio: spawn to tools/list answered', stdio.listed);

const http = { printed: [], listed: [] };
for (let i = 0; i < RUNS; i += 1) {
  const run = await httpStart();
  http.printed.push(run.printed);
  http.listed.push(run.listed);
  await run.client.close();
  run.child.kill('SIGTERM');
}
line('http: spawn to the printed URL', http.printed);
line('http: spawn to tools/list answered (connect, initialize, list)', http.listed);

const running = await stdioStart();
const read = () => running.client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
await timeCalls(running.client, read, 5); // warm
line('stdio: read_file call (40 lines)', await timeCalls(running.client, read, CALLS));
const agent = () => running.client.callTool({ name: 'agent', arguments: { prompt: 'Say done.' } });
line('stdio: agent call, a one-turn answer (session made, run, closed)', await timeCalls(running.client, agent, Math.min(CALLS, 15)));

const cancels = [];
for (let i = 0; i < 5; i += 1) {
  const before = (await running.client.listResources()).resources.map((resource) => resource.uri);
  const requests = server.requests.length;
  const controller = new AbortController();
  const call = running.client.callTool({ name: 'agent', arguments: { prompt: 'a slow one' } }, undefined, { signal: controller.signal }).catch(() => undefined);
  while (server.requests.length === requests) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const cancelled = performance.now();
  controller.abort();
  await call;
  for (;;) {
    const fresh = (await running.client.listResources()).resources.find((resource) => !before.includes(resource.uri));
    const text = fresh ? (await running.client.readResource({ uri: fresh.uri })).contents[0].text : '';
    if (text.includes('"kind":"interrupted"')) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  cancels.push(performance.now() - cancelled);
}
line('stdio: cancel to the interruption in the session file (an 8 s answer)', cancels);

const served = await httpStart();
const httpRead = () => served.client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
await timeCalls(served.client, httpRead, 5);
line('http: read_file call (40 lines)', await timeCalls(served.client, httpRead, CALLS));
await served.client.close();
served.child.kill('SIGTERM');
await running.client.close();
await server.close();
repo.cleanup();
