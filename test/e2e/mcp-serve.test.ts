// `beans mcp serve` over stdio, driven by the official MCP client: which tools each permission mode
// offers and what their annotations say, and the fences every call goes through (the workspace,
// symlinks, deny rules in every mode, trust), with files on disk as the proof of what ran.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';
import { serveStdio, textOf, writeUserSettings } from './mcp-serve-client.ts';

const READ = ['read_file', 'grep', 'glob', 'list_directory'];
const EDIT = ['write_file', 'edit_file', 'notebook_edit'];
const SHELL = ['shell', 'shell_output', 'kill_shell'];

// What each tool does, stated here independently of the server: read-only tools change nothing;
// destructive ones may overwrite or delete; only a command (and the agent) reaches past the workspace.
const TRUTH: Record<string, { readOnly: boolean; destructive: boolean; openWorld: boolean }> = {
  read_file: { readOnly: true, destructive: false, openWorld: false },
  grep: { readOnly: true, destructive: false, openWorld: false },
  glob: { readOnly: true, destructive: false, openWorld: false },
  list_directory: { readOnly: true, destructive: false, openWorld: false },
  write_file: { readOnly: false, destructive: true, openWorld: false },
  edit_file: { readOnly: false, destructive: true, openWorld: false },
  notebook_edit: { readOnly: false, destructive: true, openWorld: false },
  shell: { readOnly: false, destructive: true, openWorld: true },
  shell_output: { readOnly: true, destructive: false, openWorld: false },
  kill_shell: { readOnly: false, destructive: true, openWorld: false },
};

function repoWithFiles(): TempRepo {
  const repo = makeTempRepo({ 'notes.txt': 'hello from the workspace\n', 'src/app.ts': 'export const answer = 42;\n' });
  execFileSync('git', ['add', '-A'], { cwd: repo.dir });
  return repo;
}

describe('beans mcp serve (stdio): tools by permission mode', () => {
  it.each([
    ['default', [], [...READ, 'agent']],
    ['auto-edit', ['--permission-mode', 'auto-edit'], [...READ, ...EDIT, 'agent']],
    ['yolo', ['--permission-mode', 'yolo'], [...READ, ...EDIT, ...SHELL, 'agent']],
    ['plan', ['--permission-mode', 'plan'], [...READ, 'agent']],
  ])('%s lists exactly its tools, annotated as they behave', async (_mode, args, expected) => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo, args);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expected);
    for (const tool of tools.filter((candidate) => candidate.name !== 'agent')) {
      const truth = TRUTH[tool.name]!;
      expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: truth.readOnly, destructiveHint: truth.destructive, openWorldHint: truth.openWorld });
      expect(tool.inputSchema.type).toBe('object');
    }
    const agent = tools.find((tool) => tool.name === 'agent')!;
    // An agent run changes things unasked only where its mode lets it.
    expect(agent.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true, destructiveHint: _mode === 'auto-edit' || _mode === 'yolo' });
  });

  it('the read-only tools change nothing on disk', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo, ['--permission-mode', 'yolo']);
    const before = execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: repo.dir, encoding: 'utf8' });
    const { tools } = await client.listTools();
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
    expect(readOnly).toEqual([...READ, 'shell_output']);
    const calls: Record<string, Record<string, unknown>> = {
      read_file: { path: 'notes.txt' },
      grep: { pattern: 'answer' },
      glob: { pattern: '**/*.ts' },
      list_directory: { path: 'src' },
      shell_output: { task_id: 'no-such-task' },
    };
    for (const name of readOnly) await client.callTool({ name, arguments: calls[name] });
    expect(execFileSync('git', ['status', '--porcelain', '--ignored'], { cwd: repo.dir, encoding: 'utf8' })).toBe(before);
  });

  it('an allow rule that lets the agent run commands makes it destructive in the default mode too', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo, ['--allowed-tools', 'shell(git *)']);
    const agent = (await client.listTools()).tools.find((tool) => tool.name === 'agent')!;
    expect(agent.annotations?.destructiveHint).toBe(true);
  });

  it("a repository's own settings cannot loosen the mode until the folder is trusted", async () => {
    const repo = repoWithFiles();
    repo.write('.beans/settings.json', JSON.stringify({ permissions: { mode: 'yolo' } }));
    const untrusted = await serveStdio(repo);
    expect((await untrusted.client.listTools()).tools.map((tool) => tool.name)).not.toContain('shell');
    const refused = await untrusted.client.callTool({ name: 'shell', arguments: { command: 'touch marker-untrusted' } });
    expect(refused.isError).toBe(true);
    expect(existsSync(path.join(repo.dir, 'marker-untrusted'))).toBe(false);
    const trusted = await serveStdio(repo, ['--trust']);
    expect((await trusted.client.listTools()).tools.map((tool) => tool.name)).toContain('shell');
  });
});

describe('beans mcp serve (stdio): every call goes through the fences', () => {
  it('reads inside the workspace; outside it, through .., an absolute path or a symlink is an error and shows nothing', async () => {
    const repo = repoWithFiles();
    const outside = path.join(path.dirname(repo.dir), 'outside-secret.txt');
    writeFileSync(outside, 'OUTSIDE-SECRET-7731\n');
    symlinkSync(outside, path.join(repo.dir, 'link.txt'));
    symlinkSync(path.dirname(repo.dir), path.join(repo.dir, 'up'));
    const { client } = await serveStdio(repo, ['--permission-mode', 'yolo']);

    const inside = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(inside.isError).toBeFalsy();
    expect(textOf(inside)).toContain('hello from the workspace');

    for (const [name, args] of [
      ['read_file', { path: '../outside-secret.txt' }],
      ['read_file', { path: outside }],
      ['read_file', { path: 'link.txt' }],
      ['read_file', { path: 'up/outside-secret.txt' }],
      ['list_directory', { path: 'up' }],
      ['grep', { pattern: 'OUTSIDE-SECRET', path: '..' }],
      ['glob', { pattern: '*', path: 'up' }],
      ['write_file', { path: 'link.txt', content: 'overwritten' }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args)}: ${textOf(result)}`).toBe(true);
      expect(textOf(result)).toMatch(/outside the workspace/);
      expect(textOf(result)).not.toContain('OUTSIDE-SECRET-7731');
    }
    // A search of the whole workspace does not follow the link out either.
    expect(textOf(await client.callTool({ name: 'grep', arguments: { pattern: 'OUTSIDE-SECRET' } }))).not.toContain('OUTSIDE-SECRET-7731');
    expect(readFileSync(outside, 'utf8')).toBe('OUTSIDE-SECRET-7731\n');
  });

  it('--cwd names the workspace when the client starts the server elsewhere (Claude Desktop)', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo, ['--cwd', path.join(repo.dir, 'src')], {}, repo.home);
    expect(client.getInstructions()).toContain(`workspace ${repo.dir} `); // the git root of --cwd
    expect(textOf(await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } }))).toContain('hello from the workspace');
    expect((await client.callTool({ name: 'read_file', arguments: { path: path.join(repo.home, '.gitconfig') } })).isError).toBe(true);
  });

  it('in the default mode a shell call is refused with isError and nothing runs; so are writes', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo);
    const shell = await client.callTool({ name: 'shell', arguments: { command: 'touch marker-shell' } });
    expect(shell.isError).toBe(true);
    expect(textOf(shell)).toMatch(/shell is not offered.*Nothing was run.*--permission-mode yolo/s);
    const write = await client.callTool({ name: 'write_file', arguments: { path: 'marker-write.txt', content: 'x' } });
    expect(write.isError).toBe(true);
    const edit = await client.callTool({ name: 'edit_file', arguments: { path: 'notes.txt', old_string: 'hello', new_string: 'HACKED' } });
    expect(edit.isError).toBe(true);
    expect(existsSync(path.join(repo.dir, 'marker-shell'))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'marker-write.txt'))).toBe(false);
    expect(readFileSync(path.join(repo.dir, 'notes.txt'), 'utf8')).toBe('hello from the workspace\n');
  });

  it('auto-edit edits files but still refuses the shell', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo, ['--permission-mode', 'auto-edit']);
    const write = await client.callTool({ name: 'write_file', arguments: { path: 'new.txt', content: 'made over MCP\n' } });
    expect(write.isError, textOf(write)).toBeFalsy();
    expect(readFileSync(path.join(repo.dir, 'new.txt'), 'utf8')).toBe('made over MCP\n');
    const shell = await client.callTool({ name: 'shell', arguments: { command: 'touch marker-auto-edit' } });
    expect(shell.isError).toBe(true);
    expect(existsSync(path.join(repo.dir, 'marker-auto-edit'))).toBe(false);
  });

  it.each([['default'], ['auto-edit'], ['yolo']])('deny rules hold in %s', async (mode) => {
    const repo = repoWithFiles();
    repo.write('secret.txt', 'TOP-SECRET-4411\n');
    repo.write('victim.txt', 'still here\n');
    writeUserSettings(repo, { permissions: { deny: ['read_file(secret.txt)', 'shell(rm *)', 'write_file(victim.txt)', 'edit_file(victim.txt)'] } });
    const { client } = await serveStdio(repo, ['--permission-mode', mode, '--disallowed-tools', 'glob']);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('glob'); // a bare name removes the tool

    const read = await client.callTool({ name: 'read_file', arguments: { path: 'secret.txt' } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/denied|blocked/i);
    expect(textOf(read)).not.toContain('TOP-SECRET-4411');
    expect(textOf(await client.callTool({ name: 'grep', arguments: { pattern: 'TOP-SECRET' } }))).not.toContain('TOP-SECRET-4411');
    expect((await client.callTool({ name: 'glob', arguments: { pattern: '*' } })).isError).toBe(true);
    if (mode !== 'default') {
      const write = await client.callTool({ name: 'write_file', arguments: { path: 'victim.txt', content: 'gone' } });
      expect(write.isError).toBe(true);
      expect(textOf(write)).toMatch(/denied|blocked/i);
    }
    if (mode === 'yolo') {
      const rm = await client.callTool({ name: 'shell', arguments: { command: 'rm -f victim.txt' } });
      expect(rm.isError).toBe(true);
      expect(textOf(rm)).toMatch(/shell\(rm \*\)/);
      // (A read_file rule covers the file tools, not `cat`: outside --sandbox, README "Security".)
    }
    expect(readFileSync(path.join(repo.dir, 'victim.txt'), 'utf8')).toBe('still here\n');
  });

  it("the user's PreToolUse and PostToolUse hooks run for every call, with Claude Code's payloads", async () => {
    const repo = repoWithFiles();
    const log = path.join(repo.home, 'hooks.jsonl');
    // Logs each payload; blocks reads of src/ (exit 2: the reason goes back as the result).
    const guard = `cat >> ${log}; echo >> ${log}; tail -n 1 ${log} | grep -q '"file_path":"[^"]*src/' && { echo 'src/ is off limits' >&2; exit 2; }; exit 0`;
    writeUserSettings(repo, {
      hooks: {
        PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: guard }] }],
        PostToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `cat >> ${log}; echo >> ${log}` }] }],
      },
    });
    const { client } = await serveStdio(repo);
    const blocked = await client.callTool({ name: 'read_file', arguments: { path: 'src/app.ts' } });
    expect(blocked.isError).toBe(true);
    expect(textOf(blocked)).toContain('src/ is off limits');
    expect(textOf(blocked)).not.toContain('answer = 42');
    const allowed = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(textOf(allowed)).toContain('hello from the workspace');
    const events = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as { hook_event_name: string; tool_name: string; tool_input: { file_path: string } });
    expect(events.map((event) => [event.hook_event_name, event.tool_name, path.basename(event.tool_input.file_path)])).toEqual([
      ['PreToolUse', 'Read', 'app.ts'],
      ['PreToolUse', 'Read', 'notes.txt'],
      ['PostToolUse', 'Read', 'notes.txt'],
    ]);
  });

  it('a refused tool name that was never served says so, and arguments are checked by the tool', async () => {
    const repo = repoWithFiles();
    const { client } = await serveStdio(repo);
    const unknown = await client.callTool({ name: 'task', arguments: { description: 'x', prompt: 'x', subagent_type: 'general-purpose' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/task is not offered/);
    const bad = await client.callTool({ name: 'read_file', arguments: { file: 'notes.txt' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/Invalid arguments for read_file/);
  });
});

describe('beans mcp serve (stdio): sessions as resources', () => {
  it("lists this workspace's sessions as beans://sessions/<id> and reads their transcripts; any other URI is refused", async () => {
    const repo = repoWithFiles();
    const ollama = await scriptedOllama({ turns: [{ text: 'Noted.' }] });
    const run = await runBeans(['-p', 'remember the mcp resources'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: ollama.url } });
    expect(run.code, run.stderr).toBe(0);
    const { client } = await serveStdio(repo);
    const { resources } = await client.listResources();
    expect(resources).toHaveLength(1);
    const [session] = resources;
    expect(session!.uri).toMatch(/^beans:\/\/sessions\/[\w-]+$/);
    const read = await client.readResource({ uri: session!.uri });
    const text = (read.contents[0] as { text: string }).text;
    const header = JSON.parse(text.split('\n')[0]!) as { type: string; id: string };
    expect(header).toMatchObject({ type: 'session', id: session!.name });
    expect(text).toContain('remember the mcp resources');
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['beans://sessions/{id}']);

    for (const uri of [
      'beans://sessions/../../../etc/passwd',
      'beans://sessions/..%2F..%2Fetc%2Fpasswd',
      'file:///etc/passwd',
      'beans://sessions/no-such-session',
    ]) {
      await expect(client.readResource({ uri }), uri).rejects.toThrow(/not a Beans session|No session/);
    }
  });
});

describe('beans mcp serve: start-up', () => {
  it('a one-shot run loads none of its code; the server loads it', async () => {
    const repo = repoWithFiles();
    const probe = path.join(repo.home, 'probe.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, Object.keys(require('module')._cache).map((f) => require('path').basename(f)).join('\\n')));",
    );
    const out = path.join(repo.home, 'loaded.txt');
    const ollama = await scriptedOllama({ turns: [{ text: 'Hi.' }] });
    const env = { ...repo.env, NODE_OPTIONS: `--require=${probe}`, PROBE_OUT: out, OLLAMA_HOST: ollama.url };
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env });
    expect(run.code, run.stderr).toBe(0);
    const oneShot = readFileSync(out, 'utf8').split('\n');
    expect(oneShot.some((file) => file.startsWith('cli'))).toBe(true);
    expect(oneShot.filter((file) => file.startsWith('mcp-serve') || file.startsWith('mcp-server'))).toEqual([]);
    const { client } = await serveStdio(repo, [], { NODE_OPTIONS: `--require=${probe}`, PROBE_OUT: out });
    await client.close();
    await expect
      .poll(
        () =>
          readFileSync(out, 'utf8')
            .split('\n')
            .filter((file) => file.startsWith('mcp-server')).length,
        { timeout: 10_000 },
      )
      .toBe(1);
  });
});
