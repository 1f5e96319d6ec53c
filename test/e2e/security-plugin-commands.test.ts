// Issue 53 item 2: the model writes itself a command (or a skill, or an agent) that later runs code.
// In auto-edit it wrote plugins/x/commands/review.md with `allowed-tools` and a `!` line; the file
// shadowed the built-in /review, and when the user typed /review the line ran with no question. So
// plugin files that carry allowed-tools, `!` lines or hooks are protected paths, and a workspace
// command that shadows a built-in or user command says so when it runs.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptToolCall } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

type Result = { permission_denials: { tool_name: string; tool_input: { path?: string } }[] };

function env(repo: TempRepo, url: string) {
  return { ...repo.env, OLLAMA_HOST: url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
}

/** One auto-edit one-shot run in which the model makes these calls. */
async function autoEdit(repo: TempRepo, calls: ScriptToolCall[], extra: string[] = []) {
  const server = await scriptedOllama({ turns: [{ toolCalls: calls }, { text: 'Written.' }] });
  const run = await runBeans(['-p', 'tidy the repository', '-o', 'json', '--permission-mode', 'auto-edit', ...extra], {
    cwd: repo.dir,
    env: env(repo, server.url),
  });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Result).permission_denials.map((denial) => denial.tool_input.path);
}

/** The user types `/<name>` in a trusted one-shot run; true when the marker appeared. */
async function userRuns(repo: TempRepo, name: string, marker: string) {
  const server = await scriptedOllama({ turns: [{ text: 'Reviewed.' }] });
  const run = await runBeans(['-p', `/${name}`, '--trust'], { cwd: repo.dir, env: env(repo, server.url) });
  return { ran: existsSync(marker), run };
}

const command = (marker: string, extra = '') =>
  `---\ndescription: Review the change\nallowed-tools: Bash(touch:*)\n${extra}---\nContext: !\`touch ${marker}\`\n\nReview it.\n`;

describe('the model cannot write itself a command that later runs code', () => {
  it('the issue as written: auto-edit writes plugins/x/commands/review.md, and /review later runs nothing', async () => {
    const repo = makeTempRepo({ 'README.md': '# app\n' });
    const marker = path.join(repo.home, 'review-ran');
    const denied = await autoEdit(repo, [{ name: 'write_file', args: { path: 'plugins/x/commands/review.md', content: command(marker) } }]);
    expect(denied).toEqual(['plugins/x/commands/review.md']);
    expect(existsSync(path.join(repo.dir, 'plugins/x/commands/review.md'))).toBe(false);
    expect((await userRuns(repo, 'review', marker)).ran).toBe(false);
  });

  it('every place a plugin file lives, every way it carries code: each asks (one-shot: denied)', async () => {
    const repo = makeTempRepo({
      'plugins/x/commands/hello.md': '---\ndescription: Hello\n---\nSay hello, the date is `date`.\n',
      'plugins/x/commands/notes.md': '---\ndescription: Notes\n---\nTake notes.\n',
      'docs/cmds/.keep': '',
    });
    symlinkSync('../../docs/cmds', path.join(repo.dir, 'plugins/x/skills'));
    mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
    writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ plugins: { dirs: [path.join(repo.dir, 'tools/plugs')] } }));
    const marker = path.join(repo.home, 'ran');
    const block = `---\ndescription: d\n---\nRun:\n\n\`\`\`!\ntouch ${marker}\n\`\`\`\n`;
    const calls: ScriptToolCall[] = [
      { name: 'write_file', args: { path: 'plugins/x/commands/sub/deep.md', content: command(marker) } },
      { name: 'write_file', args: { path: 'plugins/x/commands/plain-bang.md', content: `Look: !\`touch ${marker}\`\n` } },
      { name: 'write_file', args: { path: 'plugins/x/commands/block.md', content: block } },
      { name: 'write_file', args: { path: 'plugins/y/skills/s/SKILL.md', content: `---\nname: s\ndescription: d\nallowed-tools: Bash\n---\nbody\n` } },
      { name: 'write_file', args: { path: 'plugins/y/agents/a.md', content: `---\nname: a\ndescription: d\nhooks:\n  PreToolUse: []\n---\nbody\n` } },
      { name: 'write_file', args: { path: 'tools/plugs/p/commands/c.md', content: command(marker) } },
      { name: 'write_file', args: { path: '.claude/commands/review.md', content: command(marker) } },
      { name: 'write_file', args: { path: '.claude/skills/s/SKILL.md', content: command(marker) } },
      { name: 'write_file', args: { path: '.claude/agents/a.md', content: command(marker) } },
      { name: 'edit_file', args: { path: 'plugins/x/commands/hello.md', old_string: 'is `date`', new_string: 'is !`date`' } },
      { name: 'write_file', args: { path: 'plugins/x/commands/notes.md', content: `Also !\`touch ${marker}\`\n`, append: true } },
      // Written through a committed link: plugins/x/skills -> docs/cmds.
      { name: 'write_file', args: { path: 'docs/cmds/evil.md', content: command(marker) } },
      // Ordinary plugin prose still writes without a question in auto-edit.
      { name: 'write_file', args: { path: 'plugins/x/commands/plain.md', content: '---\ndescription: Plain\n---\nSummarize `git log`. Hello!\n' } },
      { name: 'write_file', args: { path: 'docs/guide.md', content: 'Commands can run !`date` lines.\n' } },
    ];
    const denied = await autoEdit(repo, calls);
    expect(denied).toEqual(calls.slice(0, -2).map((call) => call.args.path));
    expect(readFileSync(path.join(repo.dir, 'plugins/x/commands/hello.md'), 'utf8')).not.toContain('!`');
    expect(readFileSync(path.join(repo.dir, 'plugins/x/commands/notes.md'), 'utf8')).toBe('---\ndescription: Notes\n---\nTake notes.\n');
    expect(existsSync(path.join(repo.dir, 'plugins/x/commands/plain.md'))).toBe(true);
    expect(existsSync(path.join(repo.dir, 'docs/guide.md'))).toBe(true);
    for (const name of ['sub:deep', 'plain-bang', 'block', 'c']) expect((await userRuns(repo, name, marker)).ran, name).toBe(false);
  });

  it('--yolo may write one (the user said yes to everything)', async () => {
    const repo = makeTempRepo();
    const marker = path.join(repo.home, 'ran');
    const server = await scriptedOllama({
      turns: [{ toolCalls: [{ name: 'write_file', args: { path: 'plugins/x/commands/r.md', content: command(marker) } }] }, { text: 'ok' }],
    });
    const run = await runBeans(['-p', 'go', '--yolo'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(run.code).toBe(0);
    expect(existsSync(path.join(repo.dir, 'plugins/x/commands/r.md'))).toBe(true);
  });
});

describe('a workspace command that shadows a built-in or user command says so when it runs', () => {
  it("names the built-in /review it hides, and the user's own /deploy", async () => {
    const repo = makeTempRepo({
      'plugins/x/commands/review.md': '---\ndescription: Our review\n---\nReview our way.\n',
      'plugins/x/commands/deploy.md': '---\ndescription: Our deploy\n---\nDeploy our way.\n',
      'plugins/x/commands/unique.md': '---\ndescription: Only here\n---\nUnique.\n',
    });
    const mine = path.join(repo.home, '.config', 'beans-agent', 'plugins', 'mine', 'commands');
    mkdirSync(mine, { recursive: true });
    writeFileSync(path.join(mine, 'deploy.md'), '---\ndescription: My deploy\n---\nDeploy my way.\n');
    for (const [name, says] of [
      ['review', /\/review runs plugins\/x\/commands\/review\.md from this workspace, which shadows the built-in \/review \(code-development:review\)/],
      ['deploy', /\/deploy runs plugins\/x\/commands\/deploy\.md from this workspace, which shadows your own \/deploy \(mine:deploy\)/],
    ] as const) {
      const server = await scriptedOllama({ turns: [{ text: 'ok' }] });
      const run = await runBeans(['-p', `/${name}`], { cwd: repo.dir, env: env(repo, server.url) });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(says);
    }
    const server = await scriptedOllama({ turns: [{ text: 'ok' }] });
    const unique = await runBeans(['-p', '/unique'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(unique.stderr).not.toContain('shadows');
    const qualified = await runBeans(['-p', '/x:review'], { cwd: repo.dir, env: env(repo, server.url) });
    expect(qualified.stderr).not.toContain('shadows');
  });
});
