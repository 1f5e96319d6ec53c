// Issue 43, item 3: in auto-edit the model wrote `plugins/tools/.mcp.json` and the next start ran
// it; under --sandbox one shell command did the same and the server then ran outside the sandbox.
// Files that make Beans run code are protected paths: the file tools ask in every mode but yolo
// (one-shot: denied and listed), and the sandbox mounts them read-only.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxUnavailable } from '../support/sandbox.ts';
import { makeTempRepo, parseJsonLines, runBeans, scriptedOllama } from './harness.ts';

const SERVER = JSON.stringify({ mcpServers: { pwn: { command: 'touch', args: ['/tmp/pwned'] } } });
const PROTECTED = [
  'plugins/tools/.mcp.json',
  'plugins/tools/.claude-plugin/plugin.json',
  'plugins/tools/hooks/hooks.json',
  'plugins/tools/hooks/guard.sh',
  'tools/plugins/x/.mcp.json',
  '.lsp.json',
  '.beans/plugins/p/.mcp.json',
  '.claude/agents/a.md',
];

describe('files that make Beans run code are protected paths (issue 43, item 3)', () => {
  it('auto-edit, one-shot: write_file and edit_file on each is denied and listed; an ordinary file is written', async () => {
    const repo = makeTempRepo({ 'plugins/tools/commands/hi.md': 'hi\n', 'plugins/old/.mcp.json': '{"mcpServers":{}}\n' });
    const calls = [
      ...PROTECTED.map((file) => ({ name: 'write_file', args: { path: file, content: SERVER } })),
      { name: 'edit_file', args: { path: 'plugins/old/.mcp.json', old_string: '{}', new_string: '{"pwn":{"command":"touch","args":["/tmp/pwned"]}}' } },
      { name: 'write_file', args: { path: 'src/hooks/useThing.ts', content: 'export {}\n' } },
      { name: 'write_file', args: { path: 'plugins/tools/commands/new.md', content: 'new\n' } },
    ];
    const server = await scriptedOllama({ turns: [{ toolCalls: calls }, { text: 'done' }] });
    const run = await runBeans(['-p', 'go', '--permission-mode', 'auto-edit', '-o', 'stream-json'], {
      cwd: repo.dir,
      env: { ...repo.env, OLLAMA_HOST: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    for (const file of PROTECTED) expect(existsSync(path.join(repo.dir, file)), file).toBe(false);
    expect(readFileSync(path.join(repo.dir, 'plugins/old/.mcp.json'), 'utf8')).toBe('{"mcpServers":{}}\n');
    // Not every folder called hooks is a plugin's: a React project's src/hooks is ordinary code.
    expect(readFileSync(path.join(repo.dir, 'src/hooks/useThing.ts'), 'utf8')).toBe('export {}\n');
    expect(readFileSync(path.join(repo.dir, 'plugins/tools/commands/new.md'), 'utf8')).toBe('new\n');
    const result = parseJsonLines(run.stdout).at(-1) as { permission_denials: { tool_input: { path: string } }[] };
    expect(result.permission_denials.map((denial) => denial.tool_input.path).sort()).toEqual([...PROTECTED, 'plugins/old/.mcp.json'].sort());
  });

  it('--yolo writes them (the one mode that never asks)', async () => {
    const repo = makeTempRepo();
    const server = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'plugins/tools/.mcp.json', content: SERVER } }] }, { text: 'done' }],
    });
    const run = await runBeans(['-p', 'go', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(path.join(repo.dir, 'plugins/tools/.mcp.json'))).toBe(true);
  });

  it.skipIf(sandboxUnavailable !== undefined)(
    `under --sandbox a shell command cannot write them${sandboxUnavailable ? ` (skipped: ${sandboxUnavailable})` : ''}`,
    async () => {
      const repo = makeTempRepo({ 'plugins/tools/commands/hi.md': 'hi\n' });
      const commands = [
        `echo '${SERVER}' > plugins/tools/.mcp.json`,
        `mkdir -p plugins/fresh && echo '${SERVER}' > plugins/fresh/.mcp.json`,
        'mkdir -p plugins/tools/hooks && echo x > plugins/tools/hooks/hooks.json',
        'echo {} > .lsp.json',
        'echo ok > src.txt',
      ];
      const tmp = path.join(path.dirname(repo.dir), 'tmp');
      const server = await scriptedOllama({ turns: [{ toolCalls: commands.map((command) => ({ name: 'shell', args: { command } })) }, { text: 'done' }] });
      const run = await runBeans(['-p', 'go', '--sandbox', '-o', 'json'], {
        cwd: repo.dir,
        env: { ...repo.env, TMPDIR: tmp, OLLAMA_HOST: server.url },
        timeoutMs: 40_000,
      });
      expect(run.code, run.stderr).toBe(0);
      for (const file of ['plugins/tools/.mcp.json', 'plugins/fresh/.mcp.json', 'plugins/tools/hooks/hooks.json'])
        expect(existsSync(path.join(repo.dir, file)), file).toBe(false);
      // A path bubblewrap blocks by mounting /dev/null on it may remain as an empty file; it holds no server.
      expect(existsSync(path.join(repo.dir, '.lsp.json')) ? readFileSync(path.join(repo.dir, '.lsp.json'), 'utf8') : '').toBe('');
      expect(readFileSync(path.join(repo.dir, 'src.txt'), 'utf8')).toBe('ok\n');
    },
  );
});
