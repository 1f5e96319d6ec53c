import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerEntry } from '../../src/mcp/mcp-config.js';
import { connectMcpServers, type McpServerSet } from '../../src/mcp/mcp-servers.js';
import { rememberedServerFile } from '../../src/mcp/remembered-servers.js';
import { createToolSessionState, toolDeclaration, type ToolContext } from '../../src/tools/tool.js';

const require = createRequire(import.meta.url);
const memoryServer = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-remembered-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function memoryEntry(dir: string, name = 'mem'): McpServerEntry {
  return {
    name,
    source: 'test',
    config: { transport: 'stdio', command: process.execPath, args: [memoryServer], env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') } },
  };
}

async function connect(entries: McpServerEntry[], rememberDir: string): Promise<McpServerSet> {
  const set = await connectMcpServers(entries, { cwd: os.tmpdir(), timeoutMs: 20_000, rememberDir });
  cleanup.push(() => set.close());
  return set;
}

function context(): ToolContext {
  return { signal: new AbortController().signal, workspace: { root: os.tmpdir(), cwd: os.tmpdir(), isGit: false }, state: createToolSessionState() };
}

const declarations = (set: McpServerSet) => set.tools().map(toolDeclaration);

describe('MCP servers remembered from the last run', () => {
  it('are not waited for: their tools are offered as before while they connect, and a call waits for them', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const rememberDir = path.join(dir, 'mcp-tools');
    const first = await connect([memoryEntry(dir)], rememberDir);
    expect(first.statuses()).toMatchObject([{ name: 'mem', status: 'connected' }]);
    const offered = declarations(first);
    expect(offered.map((d) => d.name)).toContain('mcp__mem__read_graph');
    await first.close();

    const started = performance.now();
    const second = await connect([memoryEntry(dir)], rememberDir);
    const returnedAfter = performance.now() - started;
    expect(second.statuses()).toMatchObject([{ name: 'mem', status: 'pending' }]);
    expect(declarations(second)).toEqual(offered);
    // The server alone takes far longer than reading one small file.
    expect(returnedAfter).toBeLessThan(100);

    const create = second.tools().find((t) => t.name === 'mcp__mem__create_entities')!;
    const result = await create.execute({ entities: [{ name: 'Beans', entityType: 'project', observations: ['starts fast'] }] }, context());
    expect(result.isError).toBeFalsy();
    expect(String(result.content)).toContain('Beans');
    expect(second.statuses()).toMatchObject([{ name: 'mem', status: 'connected' }]);
  });

  it('start afresh when the configuration changes', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const rememberDir = path.join(dir, 'mcp-tools');
    await (await connect([memoryEntry(dir)], rememberDir)).close();
    const changed: McpServerEntry = {
      ...memoryEntry(dir),
      config: {
        ...(memoryEntry(dir).config as { transport: 'stdio'; command: string; args: string[]; env: Record<string, string> }),
        env: { MEMORY_FILE_PATH: path.join(dir, 'other.jsonl') },
      },
    };
    const set = await connect([changed], rememberDir);
    expect(set.statuses()).toMatchObject([{ name: 'mem', status: 'connected' }]);
    expect(readdirSync(rememberDir)).toHaveLength(2);
  });

  it('drop the remembered tools of a server that no longer starts, and say why on a call', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const rememberDir = path.join(dir, 'mcp-tools');
    const broken: McpServerEntry = {
      name: 'gone',
      source: 'test',
      config: { transport: 'stdio', command: path.join(dir, 'no-such-server'), args: [], env: {} },
    };
    const remembered = {
      tools: [{ name: 'lookup', description: 'Looks things up', inputSchema: { type: 'object', properties: {} } }],
      prompts: [],
      resources: false,
    };
    mkdirSync(rememberDir, { recursive: true });
    writeFileSync(rememberedServerFile(rememberDir, broken), JSON.stringify(remembered));
    const set = await connect([broken], rememberDir);
    expect(set.tools().map((t) => t.name)).toEqual(['mcp__gone__lookup']);
    await expect(set.tools()[0].execute({}, context())).rejects.toThrow(/could not start: the command .*no-such-server was not found/);
    await expect.poll(() => set.statuses()[0]?.status).toBe('failed');
    expect(set.tools()).toEqual([]);
  });

  it('ignore a remembered file that is not one, and wait for the server', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const rememberDir = path.join(dir, 'mcp-tools');
    const entry = memoryEntry(dir);
    mkdirSync(rememberDir, { recursive: true });
    writeFileSync(rememberedServerFile(rememberDir, entry), '{"tools": "not a list"}');
    const set = await connect([entry], rememberDir);
    expect(set.statuses()).toMatchObject([{ name: 'mem', status: 'connected' }]);
    expect(set.tools().length).toBeGreaterThan(3);
  });

  it('start when asked to (after the first request) and close without waiting for one still starting, leaving no process', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const rememberDir = path.join(dir, 'mcp-tools');
    const marker = `beans-remembered-${process.pid}-${Date.now()}`;
    // Never answers: as a server still starting when the run ends.
    const slow: McpServerEntry = {
      name: 'slow',
      source: 'test',
      config: { transport: 'stdio', command: process.execPath, args: ['-e', 'setTimeout(() => {}, 30000)', marker], env: {} },
    };
    mkdirSync(rememberDir, { recursive: true });
    writeFileSync(rememberedServerFile(rememberDir, slow), JSON.stringify({ tools: [], prompts: [], resources: false }));
    const set = await connect([slow], rememberDir);
    expect(set.statuses()).toMatchObject([{ status: 'pending' }]);
    const running = () =>
      execFileSync('ps', ['-eo', 'args'])
        .toString()
        .split('\n')
        .filter((line) => line.includes(marker));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(running()).toEqual([]);
    set.startRemembered();
    await expect.poll(running).toHaveLength(1);
    const started = performance.now();
    await set.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect.poll(running).toEqual([]);
  });
});
