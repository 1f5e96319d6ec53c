// Attacks on the read-only search tools (they run without asking), run as they were: a scripted
// model, a one-shot run, a canary file outside the workspace that must never reach the model.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempRepo, runBeans, scriptedOllama } from './harness.ts';

const CANARY = 'CANARY-7d1f-outside-the-workspace';

/** A repository and, beside it, a folder with the canary that the model must not read. */
function repoWithCanary() {
  const repo = makeTempRepo({ 'src/app.txt': 'inside\n' });
  const outside = path.join(path.dirname(repo.dir), 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'passwd'), `root:${CANARY}\n`);
  return { repo, outside };
}

async function runTool(repo: ReturnType<typeof makeTempRepo>, name: string, args: Record<string, unknown>, timeoutMs = 20_000) {
  const server = await scriptedOllama({ turns: [{ toolCalls: [{ name, args }] }, { text: 'done' }] });
  const run = await runBeans(['-p', 'search'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url }, timeoutMs });
  const second = server.requests.filter((r) => r.kind === 'chat')[1];
  const results = ((second?.body as { messages?: { role: string; content: string }[] })?.messages ?? []).filter((m) => m.role === 'tool').map((m) => m.content);
  return { run, result: results[0] ?? '', requestText: JSON.stringify(second?.body ?? {}) };
}

describe('search tools stay inside the workspace', () => {
  it('grep ignores a repository-set core.worktree and a folder named like pathspec magic (finding 2)', async () => {
    const { repo, outside } = repoWithCanary();
    execFileSync('git', ['config', 'core.worktree', outside], { cwd: repo.dir });
    mkdirSync(path.join(repo.dir, ':(top)etc'), { recursive: true });
    writeFileSync(path.join(repo.dir, ':(top)etc', 'note.txt'), 'harmless\n');
    for (const args of [{ pattern: 'root' }, { pattern: 'root', path: ':(top)etc' }, { pattern: '.' }]) {
      const { run, requestText } = await runTool(repo, 'grep', args);
      expect(run.code).toBe(0);
      expect(requestText).not.toContain(CANARY);
    }
  });

  it('a catastrophic regex is stopped with an error the model can act on, not a hang (finding 4)', async () => {
    const repo = makeTempRepo({ 'a.txt': `${'a'.repeat(40)}!\n` });
    // ripgrep (when installed) runs `(a+)+$` in linear time; the lookahead makes it refuse the regex, so
    // git's PCRE gives up on it and the JavaScript engine's worker must be stopped at its deadline.
    for (const pattern of ['(a+)+$', '(?=a)(a+)+$']) {
      const started = Date.now();
      const { run, result } = await runTool(repo, 'grep', { pattern, path: 'a.txt' }, 60_000);
      expect(run.code).toBe(0);
      expect(Date.now() - started).toBeLessThan(40_000);
      if (pattern.startsWith('(?=')) expect(result).toMatch(/took longer than 20s and was stopped.*Rewrite it/);
      else expect(result).toMatch(/^No matches|took longer than 20s and was stopped/);
    }
  }, 100_000);

  it('glob results are confined: brace sets with absolute or .. alternatives, and a symlinked folder (finding 5)', async () => {
    const { repo, outside } = repoWithCanary();
    symlinkSync(outside, path.join(repo.dir, 'linked'));
    for (const pattern of [`{${outside},src}/pass*`, '.{.,}/outside/*', 'linked/*', '{linked,src}/**']) {
      const { run, result } = await runTool(repo, 'glob', { pattern });
      expect(run.code).toBe(0);
      expect(result).not.toContain('passwd');
    }
  });
});
