import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandVariables, loadMcpConfigArgument, loadMcpConfigFile, mergeMcpConfigs, parseMcpServers } from '../../src/mcp/mcp-config.js';

const env = { HOME: '/home/u', TOKEN: 'abc', EMPTY: '' };

describe("MCP configuration in Claude Code's formats", () => {
  it('reads stdio, http and sse servers from a .mcp.json file, expanding ${VAR} and ${VAR:-default}', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-mcpcfg-'));
    const file = path.join(dir, '.mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', 'server', '${HOME}/data'], env: { KEY: '${TOKEN}' } },
          api: { type: 'http', url: '${API_URL:-https://example.test}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
          old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        },
      }),
    );
    const result = loadMcpConfigFile(file, env);
    expect(result.problems).toEqual([]);
    expect(result.servers).toEqual([
      { name: 'files', source: file, config: { transport: 'stdio', command: 'npx', args: ['-y', 'server', '/home/u/data'], env: { KEY: 'abc' } } },
      { name: 'api', source: file, config: { transport: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer abc' } } },
      { name: 'old', source: file, config: { transport: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} } },
    ]);
  });

  it('reports a malformed file with its path instead of failing, and a missing file is no servers', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-mcpcfg-'));
    const file = path.join(dir, '.mcp.json');
    writeFileSync(file, '{ "mcpServers": { "a": ');
    const result = loadMcpConfigFile(file, env);
    expect(result.servers).toEqual([]);
    expect(result.problems[0]!.source).toBe(file);
    expect(result.problems[0]!.message).toContain('not valid JSON');
    expect(loadMcpConfigFile(path.join(dir, 'absent.json'), env)).toEqual({ servers: [], problems: [] });
  });

  it('keeps good servers next to bad ones and names what is wrong', () => {
    const result = parseMcpServers(
      { good: { command: 'x' }, bad: { args: [] }, 'no spaces': { command: 'y' }, unset: { command: '${NOPE}' } },
      'settings',
      env,
    );
    expect(result.servers.map((server) => server.name)).toEqual(['good']);
    expect(result.problems.map((problem) => problem.message)).toEqual([
      'MCP server "bad" needs either "command" (stdio) or "type": "http"|"sse" with "url".',
      'MCP server name "no spaces" may hold only letters, digits, "_" and "-".',
      'MCP server "unset": the environment variable NOPE is not set (set it, or write ${NOPE:-default}).',
    ]);
  });

  it('expands a plugin root and defaults for empty variables', () => {
    expect(expandVariables('${CLAUDE_PLUGIN_ROOT}/server.js', env, { CLAUDE_PLUGIN_ROOT: '/plugins/p' })).toBe('/plugins/p/server.js');
    expect(expandVariables('${EMPTY:-fallback}', env)).toBe('fallback');
    expect(expandVariables('$HOME stays', env)).toBe('$HOME stays');
  });

  it('takes --mcp-config as JSON text or a file, and a later server of the same name wins', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-mcpcfg-'));
    writeFileSync(path.join(dir, 'extra.json'), JSON.stringify({ mcpServers: { a: { command: 'from-file' } } }));
    const fromFile = loadMcpConfigArgument('extra.json', dir, env);
    const fromJson = loadMcpConfigArgument('{"mcpServers":{"a":{"command":"from-json"},"b":{"command":"b"}}}', dir, env);
    const merged = mergeMcpConfigs([fromFile, fromJson]);
    expect(merged.servers.map((server) => [server.name, server.config.transport === 'stdio' ? server.config.command : ''])).toEqual([
      ['a', 'from-json'],
      ['b', 'b'],
    ]);
    expect(loadMcpConfigArgument('missing.json', dir, env).problems[0]!.message).toContain('does not exist');
  });
});
