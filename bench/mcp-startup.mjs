// Start-up cost of MCP servers: time until every server is connected and its tools are listed
// (what a session waits for before its first model request), with 0 and 3 configured servers.
// Usage: node bench/mcp-startup.mjs [runs]   (after `pnpm run build`)
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSessionMcp } from '../packages/core/dist/mcp/session-mcp.js';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
const memory = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const runs = Number(process.argv[2] ?? 5);
// A folder of this run's own (not a fixed /tmp path another user or run may own), removed at the end.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'beans-bench-mcp-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const env = { ...process.env, XDG_STATE_HOME: path.join(scratch, 'state') };
const three = JSON.stringify({
  mcpServers: {
    a: { command: process.execPath, args: [everything, 'stdio'] },
    b: { command: process.execPath, args: [everything, 'stdio'] },
    c: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: path.join(scratch, 'memory.jsonl') } },
  },
});

async function measure(configArguments) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const set = await startSessionMcp({ workspaceRoot: scratch, cwd: scratch, env, pluginRoots: [], configArguments, strict: true }, []);
    times.push(performance.now() - started);
    await set?.close();
  }
  times.sort((a, b) => a - b);
  return `median ${times[Math.floor(times.length / 2)].toFixed(1)} ms (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)})`;
}

console.log(`0 servers: ${await measure([])}`);
console.log(`3 servers (2x server-everything, server-memory, stdio, in parallel): ${await measure([three])}`);
