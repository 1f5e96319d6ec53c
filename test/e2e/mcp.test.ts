import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans } from './harness.ts';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

describe('beans mcp add | list | remove', () => {
  it('writes .mcp.json like claude mcp add, lists servers with status and tools (trusted with --trust), and removes them', { timeout: 60_000 }, async () => {
    const repo = makeTempRepo();
    const added = await runBeans(['mcp', 'add', 'ev', '--', process.execPath, everything, 'stdio'], { cwd: repo.dir, env: repo.env });
    expect(added.code).toBe(0);
    const http = await runBeans(['mcp', 'add', '--transport', 'http', '-H', 'Authorization: Bearer ${TOKEN:-none}', 'remote', 'http://127.0.0.1:9/mcp'], { cwd: repo.dir, env: repo.env });
    expect(http.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(repo.dir, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        ev: { command: process.execPath, args: [everything, 'stdio'] },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${TOKEN:-none}' } },
      },
    });

    // The project's own file is a repository asking to run commands: not started in an untrusted folder.
    const untrusted = await runBeans(['mcp', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(untrusted.code).toBe(0);
    expect(JSON.parse(untrusted.stdout).servers).toEqual([
      expect.objectContaining({ name: 'ev', status: 'disabled', tools: [] }),
      expect.objectContaining({ name: 'remote', transport: 'http', status: 'disabled' }),
    ]);

    // --mcp-config names servers on the command line; they start, and a refused one is reported.
    const listed = await runBeans(['mcp', 'list', '--json', '--strict-mcp-config', '--mcp-config', '.mcp.json'], { cwd: repo.dir, env: repo.env });
    const servers = JSON.parse(listed.stdout).servers as { name: string; status: string; tools: string[]; error?: string }[];
    expect(servers[0]).toMatchObject({ name: 'ev', transport: 'stdio', status: 'connected' });
    expect(servers[0]!.tools).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(servers[1]).toMatchObject({ name: 'remote', transport: 'http', status: 'failed' });
    expect(servers[1]!.error).toContain('http://127.0.0.1:9/mcp');

    const trusted = await runBeans(['mcp', 'list', '--json', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(JSON.parse(trusted.stdout).servers[0]).toMatchObject({ name: 'ev', status: 'connected' });

    const removed = await runBeans(['mcp', 'remove', 'ev'], { cwd: repo.dir, env: repo.env });
    expect(removed.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(path.join(repo.dir, '.mcp.json'), 'utf8')).mcpServers)).toEqual(['remote']);
    const again = await runBeans(['mcp', 'remove', 'ev'], { cwd: repo.dir, env: repo.env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('No MCP server named ev');
  });
});
