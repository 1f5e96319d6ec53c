import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandRulesAllow,
  expandCommand,
  expandFileReferences,
  loadPlugins,
  runCommandShell,
  type PluginCatalog,
  type ShellRunResult,
} from '../../src/plugins/index.js';

const run = promisify(execFile);

function tempDir(): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-cmdrun-')));
}

function write(root: string, files: Record<string, string>): void {
  for (const [relative, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), text);
  }
}

/** A real bash in `cwd`, as the session's shell would run it. */
function bashIn(cwd: string): (command: string, signal: AbortSignal) => Promise<ShellRunResult> {
  return async (command, signal) => {
    try {
      const { stdout, stderr } = await run('bash', ['-c', command], { cwd, signal });
      return { output: stdout + stderr, exitCode: 0 };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; code?: number };
      return { output: (failed.stdout ?? '') + (failed.stderr ?? ''), exitCode: typeof failed.code === 'number' ? failed.code : null };
    }
  };
}

const COMMIT = [
  '---',
  'allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)',
  'description: Create a git commit',
  'model: haiku',
  'disable-model-invocation: true',
  '---',
  '## Context',
  '- Current git status: !`git status --short`',
  '- Plugin root: ${CLAUDE_PLUGIN_ROOT} and ${BEANS_PLUGIN_ROOT}',
  '',
  '```!',
  'git status --short -- new.txt',
  '```',
  '',
  'Not allowed: !`rm -rf build`',
  'Commit with the message $ARGUMENTS.',
].join('\n');

describe('a /commit-like command', () => {
  let workspace: string;
  let pluginRoot: string;
  let catalog: PluginCatalog;

  beforeAll(async () => {
    workspace = tempDir();
    await run('git', ['init', '-q'], { cwd: workspace });
    write(workspace, { 'new.txt': 'hello\n' });
    pluginRoot = path.join(workspace, 'plugins', 'commit-commands');
    write(pluginRoot, { 'commands/commit.md': COMMIT });
    catalog = await loadPlugins({ roots: [path.join(workspace, 'plugins')] });
  });

  it('returns the frontmatter that applies while it runs', async () => {
    const expansion = await expandCommand('/commit "first commit"', catalog);
    expect(expansion?.run).toEqual({
      allowedTools: ['shell(git add *)', 'shell(git status *)', 'shell(git commit *)'],
      model: 'haiku',
      disableModelInvocation: true,
    });
  });

  it('fills ${CLAUDE_PLUGIN_ROOT} and ${BEANS_PLUGIN_ROOT} with the plugin folder', async () => {
    const expansion = await expandCommand('/commit x', catalog);
    expect(expansion?.prompt).toContain(`- Plugin root: ${pluginRoot} and ${pluginRoot}`);
  });

  it('runs the allowed !`cmd` spans and ```! blocks and denies the rest with a reason', async () => {
    const expansion = await expandCommand('/commit "first commit"', catalog);
    const prompt = await runCommandShell(expansion!.prompt, {
      runShell: bashIn(workspace),
      isAllowed: commandRulesAllow(expansion!.run.allowedTools),
      signal: new AbortController().signal,
      commandName: '/commit',
    });
    expect(prompt).toContain('- Current git status: ?? new.txt');
    expect(prompt).toContain('```\n?? new.txt\n```');
    expect(prompt).not.toContain('```!');
    expect(prompt).toContain('Not allowed: [not run: `rm -rf build` — the allowed-tools of /commit do not allow it');
    expect(prompt).toContain('Commit with the message "first commit".');
  });
});

describe('runCommandShell', () => {
  const signal = new AbortController().signal;
  const echo = async (command: string): Promise<ShellRunResult> => ({ output: `ran ${command}\n`, exitCode: 0 });

  it('denies every command when the command lists no allowed-tools (a one-shot cannot ask)', async () => {
    // (`git status` is read-only since issue #31 and runs anyway; `git add` stands in.)
    const prompt = await runCommandShell('Status: !`git add .`', { runShell: echo, isAllowed: commandRulesAllow(undefined), signal, commandName: '/x' });
    expect(prompt).toBe(
      'Status: [not run: `git add .` — the allowed-tools of /x do not allow it, and this run cannot ask (not read-only: `git add .` runs git add, which is not a read-only git command)]',
    );
  });

  it('does not let a chained command ride on an allowed prefix', async () => {
    const allowed = commandRulesAllow(['shell(git add *)']);
    expect(await allowed('git add .')).toEqual({ run: true });
    expect(await allowed('git add . && rm -rf /')).toMatchObject({ run: false });
    expect(await allowed('git add $(rm -rf /)')).toMatchObject({ run: false });
  });

  it("lets a deny rule win over the command's allowed-tools", async () => {
    const allowed = commandRulesAllow(['shell(git *)'], [{ tool: 'shell', pattern: 'git push *', source: 'shell(git push *)' }]);
    expect(await allowed('git status')).toEqual({ run: true });
    expect(await allowed('git push origin main')).toEqual({ run: false, deniedBy: 'shell(git push *)' });
  });

  it('runs read-only lines without allowed-tools, with git made safe, and says why another line was refused (issue #31)', async () => {
    const allowed = commandRulesAllow(undefined, [{ tool: 'shell', pattern: 'git log *', source: 'shell(git log *)' }]);
    const prompt = await runCommandShell(
      '- s: !`git status --short`\n- b: !`git branch --show-current`\n- l: !`git log -1`\n- t: !`touch x`\n```!\ngit diff HEAD\n```',
      { runShell: echo, isAllowed: allowed, signal, commandName: '/commit' },
    );
    expect(prompt).toBe(
      [
        '- s: ran git -c core.fsmonitor=false status --short',
        '- b: ran git -c core.fsmonitor=false branch --show-current',
        '- l: [not run: `git log -1` — the deny rule shell(git log *) refuses it]',
        '- t: [not run: `touch x` — the allowed-tools of /commit do not allow it, and this run cannot ask (not read-only: `touch x` runs touch, which is not on the read-only list)]',
        '```',
        'ran git -c core.fsmonitor=false diff --no-ext-diff --no-textconv HEAD',
        '```',
      ].join('\n'),
    );
    const off = commandRulesAllow(undefined, [], { readOnlyCommands: false });
    expect(await off('git status')).toEqual({ run: false });
  });

  it('leaves prose such as Hello!`x` and ordinary code alone and reports a failing exit', async () => {
    const failing = async (): Promise<ShellRunResult> => ({ output: 'fatal: nope\n', exitCode: 128 });
    const prompt = await runCommandShell('Hello!`x` and `!y`\n- a: !`git log`', { runShell: failing, isAllowed: () => true, signal, commandName: '/x' });
    expect(prompt).toBe('Hello!`x` and `!y`\n- a: fatal: nope\n[`git log` exited with 128]');
  });
});

describe('expandFileReferences', () => {
  it('attaches files named with @path inside the workspace, and never a file outside it', async () => {
    const workspace = tempDir();
    const outside = tempDir();
    write(workspace, { 'src/app.ts': 'export const app = 1;\n' });
    write(outside, { 'secret.txt': 'TOP SECRET\n' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'link.txt'));
    const text = 'Review @src/app.ts, then @link.txt and @../secret.txt and mail me@example.com.';
    const expanded = await expandFileReferences(text, workspace);
    expect(expanded).toBe(`${text}\n\nContents of src/app.ts:\n\`\`\`\nexport const app = 1;\n\`\`\``);
    expect(expanded).not.toContain('TOP SECRET');
  });
});
