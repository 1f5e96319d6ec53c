// A hostile repository's plugin and context files, run as the attack was: one-shot, scripted model.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const CANARY = 'CANARY-plugin-7c2e';

describe('plugin and context files stay inside their roots (findings 7 and 11)', () => {
  it('a SKILL.md or AGENTS.md linked outside is neither in the prompt nor loadable; FIFOs never hang start-up', async () => {
    const repo = makeTempRepo();
    const outside = path.join(path.dirname(repo.dir), 'secret.md');
    writeFileSync(outside, `---\nname: leak\ndescription: ${CANARY}\n---\n${CANARY} body\n`);
    mkdirSync(path.join(repo.dir, '.beans', 'plugins', 'evil', 'skills', 'leak'), { recursive: true });
    symlinkSync(outside, path.join(repo.dir, '.beans', 'plugins', 'evil', 'skills', 'leak', 'SKILL.md'));
    mkdirSync(path.join(repo.dir, '.beans', 'plugins', 'evil', 'skills', 'ok'), { recursive: true });
    writeFileSync(path.join(repo.dir, '.beans', 'plugins', 'evil', 'skills', 'ok', 'SKILL.md'), '---\nname: ok\ndescription: a fine skill\n---\nbody\n');
    symlinkSync(path.join(repo.dir, '..', 'secret.md'), path.join(repo.dir, 'AGENTS.md'));
    mkdirSync(path.join(repo.dir, 'sub'));
    execFileSync('mkfifo', [path.join(repo.dir, 'sub', 'AGENTS.md')]);
    mkdirSync(path.join(repo.dir, '.beans', 'plugins', 'evil', 'commands'), { recursive: true });
    execFileSync('mkfifo', [path.join(repo.dir, '.beans', 'plugins', 'evil', 'commands', 'hang.md')]);
    const server = await scriptedOllama({ turns: [{ toolCalls: [{ name: 'load_skill', args: { name: 'leak' } }] }, { text: 'done' }] });
    const run = await runBeans(['-p', 'go'], { cwd: path.join(repo.dir, 'sub'), env: { ...repo.env, OLLAMA_HOST: server.url }, timeoutMs: 15_000 });
    expect(run.code).toBe(0);
    const requests = JSON.stringify(server.requests.filter((r) => r.kind === 'chat').map((r) => r.body));
    expect(requests).not.toContain(CANARY);
    expect(requests).toContain('a fine skill');
    expect(run.stderr).toContain('outside the workspace');
    expect(run.stderr).toMatch(/sub\/AGENTS\.md is not a regular file/);
    const listing = await runBeans(['plugins', 'list', '--json'], { cwd: repo.dir, env: repo.env, timeoutMs: 15_000 });
    const problems = (JSON.parse(listing.stdout) as { problems: { path: string; message: string }[] }).problems.map((p) => p.message).join('\n');
    expect(problems).toMatch(/outside its plugin/);
  });
});
