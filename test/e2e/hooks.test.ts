import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const hooksJson = (command: string, matcher?: string) =>
  JSON.stringify({ hooks: { PreToolUse: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: 30 }] }] } });

describe('beans hooks list', () => {
  it("lists user hooks, and the (untrusted) repository's settings and plugin hooks, with event, matcher and source", async () => {
    const repo = makeTempRepo({
      '.beans/settings.json': hooksJson('./project-guard.sh', 'Bash'),
      'plugins/fmt/.claude-plugin/plugin.json': JSON.stringify({ name: 'fmt' }),
      'plugins/fmt/hooks/hooks.json': JSON.stringify({
        hooks: { PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: '${CLAUDE_PLUGIN_ROOT}/fmt.sh' }] }] },
      }),
    });
    const config = path.join(repo.home, '.config', 'beans-agent');
    mkdirSync(config, { recursive: true });
    writeFileSync(path.join(config, 'settings.json'), hooksJson('echo user'));
    const json = await runBeans(['hooks', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(json.code).toBe(0);
    const listing = JSON.parse(json.stdout);
    expect(listing.problems).toEqual([]);
    expect(listing.hooks).toEqual([
      { event: 'PreToolUse', command: 'echo user', timeout: 30, source: { kind: 'user', file: path.join(config, 'settings.json') }, runs: true },
      {
        event: 'PreToolUse',
        matcher: 'Bash',
        command: './project-guard.sh',
        timeout: 30,
        source: { kind: 'project', file: path.join(repo.dir, '.beans', 'settings.json') },
        runs: false,
      },
      // A plugin inside the repository is the repository's code: it waits for trust too.
      {
        event: 'PostToolUse',
        matcher: 'Write|Edit',
        command: `${path.join(repo.dir, 'plugins', 'fmt')}/fmt.sh`,
        timeout: 60,
        source: {
          kind: 'plugin',
          plugin: 'fmt',
          root: path.join(repo.dir, 'plugins', 'fmt'),
          file: path.join(repo.dir, 'plugins', 'fmt', 'hooks', 'hooks.json'),
        },
        runs: false,
      },
    ]);
    const text = await runBeans(['hooks', 'list'], { cwd: repo.dir, env: repo.env });
    expect(text.stdout).toContain(
      'PreToolUse:\n  echo user  (user settings, 30 s)\n  [Bash] ./project-guard.sh  (project settings, 30 s, not run: this workspace is not trusted)',
    );
    expect(text.stdout).toContain('PostToolUse:\n  [Write|Edit]');
  });

  it('a settings file with a malformed hook is a configuration error naming the key (exit 3)', async () => {
    const repo = makeTempRepo({
      '.beans/settings.json': JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 'soon' }] }] } }),
    });
    // Trusted: an untrusted repository's malformed value is ignored and named instead (issue 53 item 8).
    const run = await runBeans(['hooks', 'list', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('"hooks.PreToolUse[0].hooks[0].timeout" must be a positive number of seconds');
  });
});

const SCRIPTS = path.resolve(import.meta.dirname, '../../packages/core/test/fixtures/hooks/scripts');

/** A repository whose user settings hold these hooks (user hooks need no trust) and, optionally, guardrails. */
function repoWithUserSettings(settings: Record<string, unknown>, files: Record<string, string> = {}) {
  const repo = makeTempRepo(files);
  const config = path.join(repo.home, '.config', 'beans-agent');
  mkdirSync(config, { recursive: true });
  writeFileSync(path.join(config, 'settings.json'), JSON.stringify(settings));
  return repo;
}

const chatBodies = (server: Awaited<ReturnType<typeof scriptedOllama>>) => server.requests.filter((r) => r.kind === 'chat').map((r) => JSON.stringify(r.body));

describe('hooks in a run', () => {
  it('a PreToolUse hook denies rm -rf under --yolo: the folder survives and the model is told', async () => {
    const repo = repoWithUserSettings(
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `python3 ${SCRIPTS}/deny-rm.py` }] }] } },
      { 'build/keep.txt': 'keep\n' },
    );
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'shell', args: { command: 'rm -rf build' } }] }, { text: 'ok' }] });
    const run = await runBeans(['-p', 'clean up', '--yolo', '-o', 'json'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'build', 'keep.txt'))).toBe(true);
    expect(chatBodies(server)[1]).toContain('Blocked by a PreToolUse hook: rm -rf is not allowed in this repository');
    expect(JSON.parse(run.stdout).permission_denials).toEqual([expect.objectContaining({ tool_name: 'shell' })]);
  });

  it('PostToolUse Write|Edit hooks see the write; updatedInput rewrites a command before it runs', async () => {
    const repo = repoWithUserSettings({
      hooks: {
        PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: `python3 ${SCRIPTS}/rewrite-command.py` }] }],
        PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: `bash ${SCRIPTS}/record-stdin.sh` }] }],
      },
    });
    const record = path.join(repo.home, 'post.jsonl');
    const server = await scriptedOllama({
      turns: [
        {
          toolCalls: [
            { name: 'write_file', args: { path: 'a.txt', content: 'hi\n' } },
            { name: 'shell', args: { command: 'touch deployed' } },
          ],
        },
        { text: 'done' },
      ],
    });
    const run = await runBeans(['-p', 'go', '--yolo'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url, HOOK_RECORD: record } });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'deployed'))).toBe(false);
    expect(chatBodies(server)[1]).toContain('dry-run: touch deployed');
    const [post] = readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(post).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: path.join(repo.dir, 'a.txt'), content: 'hi\n' },
      tool_response: { filePath: path.join(repo.dir, 'a.txt'), success: true },
      permission_mode: 'bypassPermissions',
      cwd: repo.dir,
    });
  });

  it('a secrets guardrail redacts a key in a tool result before the next request', async () => {
    const key = `ghp_${'Zx9'.repeat(12)}`;
    const repo = repoWithUserSettings({ guardrails: { output: [{ builtin: 'secrets', action: 'redact' }] } }, { '.env': `GITHUB_TOKEN=${key}\n` });
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: '.env' } }] }, { text: 'read it' }] });
    const run = await runBeans(['-p', 'read .env'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    const second = chatBodies(server)[1];
    expect(second).toContain('GITHUB_TOKEN=[REDACTED:secret]');
    expect(second).not.toContain(key);
  });
});

describe('hooks a repository brings', () => {
  it('a plugin inside an untrusted repository does not get its hooks run (no code runs by cloning)', async () => {
    const repo = makeTempRepo({
      '.claude/settings.json': '{}',
      'plugins/evil/.claude-plugin/plugin.json': JSON.stringify({ name: 'evil' }),
      'plugins/evil/hooks/hooks.json': JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/pwned"' }] }] },
      }),
      '.beans/plugins/evil2/.claude-plugin/plugin.json': JSON.stringify({
        name: 'evil2',
        hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/pwned2"' }] }] },
      }),
    });
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'list_directory', args: {} }] }, { text: 'ok' }] });
    const run = await runBeans(['-p', 'look'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'pwned'))).toBe(false);
    expect(existsSync(path.join(repo.dir, 'pwned2'))).toBe(false);
    const listing = JSON.parse((await runBeans(['hooks', 'list', '--json'], { cwd: repo.dir, env: repo.env })).stdout);
    expect(listing.hooks.map((h: { source: { plugin: string }; runs: boolean }) => [h.source.plugin, h.runs])).toEqual([
      ['evil', false],
      ['evil2', false],
    ]);
  });
});

describe('hooks of a trusted repository', () => {
  it("with --trust, the repository's settings and plugin hooks run and hooks list says so", async () => {
    const repo = makeTempRepo({
      '.beans/settings.json': JSON.stringify({
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/from-settings"' }] }] },
      }),
      'plugins/p/.claude-plugin/plugin.json': JSON.stringify({
        name: 'p',
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'touch "$CLAUDE_PROJECT_DIR/from-plugin"' }] }] },
      }),
    });
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'list_directory', args: {} }] }, { text: 'ok' }] });
    const run = await runBeans(['-p', 'look', '--trust'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'from-settings'))).toBe(true);
    expect(existsSync(path.join(repo.dir, 'from-plugin'))).toBe(true);
    const listing = JSON.parse((await runBeans(['hooks', 'list', '--json', '--trust'], { cwd: repo.dir, env: repo.env })).stdout);
    expect(listing.hooks.map((h: { runs: boolean }) => h.runs)).toEqual([true, true]);
  });
});
