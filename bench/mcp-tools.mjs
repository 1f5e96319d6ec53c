// Many MCP tools (issue 47): the first request's bytes and a 10-request session's bytes with 0, 50,
// 150 and 500 MCP tools (one real stdio server, realistic ~375-byte tools), on the scripted Anthropic
// and Ollama endpoints; Beans as shipped (tools deferred past the threshold) beside tools.defer
// "never" (every schema declared, as before issue 47). The session loads one MCP tool with
// tool_search, calls it, then reads seven files and answers; without MCP it reads nine files.
// Run: node bench/mcp-tools.mjs [anthropic] [ollama]   (after pnpm run build)
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runBeans, tempRepo } from './lib.mjs';
import { PROVIDERS } from './providers.mjs';
import { writeManyToolsServer } from '../test/support/many-tools-server.ts';

const COUNTS = [0, 50, 150, 500];
const argv = process.argv.slice(2);
const providers = ['anthropic', 'ollama'].filter((name) => argv.length === 0 || argv.includes(name));

function session(mcp, deferred) {
  return (_request, n) => {
    if (mcp && n === 0)
      return deferred
        ? { toolCalls: [{ name: 'tool_search', args: { query: 'select:mcp__big__create_invoice' } }] }
        : { toolCalls: [{ name: 'read_file', args: { path: 'src/f0.ts' } }] };
    if (mcp && n === 1) return { toolCalls: [{ name: 'mcp__big__create_invoice', args: { customer: 'ACME', amount: '4200' } }] };
    if (n < 9) return { toolCalls: [{ name: 'read_file', args: { path: `src/f${n}.ts` } }] };
    return { text: 'done' };
  };
}

async function measure(provider, count, defer) {
  const repo = tempRepo();
  mkdirSync(path.join(repo.dir, 'src'));
  for (let i = 0; i < 10; i += 1)
    writeFileSync(path.join(repo.dir, 'src', `f${i}.ts`), Array.from({ length: 20 }, (_, line) => `export const v${i}_${line} = ${line};`).join('\n'));
  const config = path.join(repo.home, '.config', 'beans-agent');
  mkdirSync(config, { recursive: true });
  const settings = { tools: { defer } };
  if (count > 0) settings.mcpServers = { big: { command: process.execPath, args: [writeManyToolsServer(repo.home, count)] } };
  writeFileSync(path.join(config, 'settings.json'), JSON.stringify(settings));
  const spec = PROVIDERS[provider];
  const deferredRun = defer !== 'never' && count > 0;
  const server = await spec.start({ turns: session(count > 0, deferredRun) });
  const run = await runBeans(['-p', 'bill ACME and read the files', '--allowed-tools', 'mcp__big', '--max-turns', '20'], {
    cwd: repo.dir,
    env: { ...repo.env, ...spec.env(server.url) },
  });
  await server.close();
  repo.cleanup();
  if (run.code !== 0) throw new Error(`${provider} ${count} tools: beans failed (${run.code}): ${run.stderr}`);
  const chats = server.requests.filter((request) => request.kind === 'chat');
  return {
    first: chats[0].bytes,
    total: chats.reduce((sum, request) => sum + request.bytes, 0),
    requests: chats.length,
    declared: (chats[0].body.tools ?? []).length,
  };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`.padStart(9);
for (const provider of providers) {
  console.log(`${provider}: MCP tools | first request (deferred / all declared) | 10-request session (deferred / all declared)`);
  for (const count of COUNTS) {
    const deferred = await measure(provider, count, 'auto');
    const all = count === 0 ? deferred : await measure(provider, count, 'never');
    console.log(
      `${provider.padEnd(9)} ${String(count).padStart(3)} tools | ${kb(deferred.first)} (${deferred.declared} declared) / ${kb(all.first)} (${all.declared}) | ${kb(deferred.total)} / ${kb(all.total)} (${deferred.requests} requests)`,
    );
  }
}
