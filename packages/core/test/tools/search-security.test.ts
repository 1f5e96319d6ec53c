// Attacks on the read-only search tools, at the unit level (the e2e versions are in
// test/e2e/security-search.test.ts): a repository that points git elsewhere, pathspec magic in
// folder names, catastrophic regexes, and files a deny rule keeps from every file tool.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globTool } from '../../src/tools/glob.js';
import { searchWorkspace } from '../../src/tools/grep.js';
import { commandOnPath, type GrepEngine } from '../../src/tools/grep-engines.js';
import { searchInWorker } from '../../src/tools/grep-worker.js';
import { listDirectoryTool } from '../../src/tools/list-directory.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { git, makeContext, makeOutsideDir, makeWorkspace, run } from './helpers.js';

const CANARY = 'CANARY-outside-the-workspace';
const signal = new AbortController().signal;
const engines: GrepEngine[] = commandOnPath('rg') ? ['git', 'rg', 'js'] : ['git', 'js'];
if (!commandOnPath('rg')) console.warn('search-security: ripgrep (rg) is not on PATH, so its engine is not tested here (apt-get install ripgrep).');

describe.each(engines)('grep (%s engine) stays inside the workspace', (engine) => {
  it('ignores a repository-set core.worktree and reads a folder named :(top)etc literally', async () => {
    const outside = makeOutsideDir();
    mkdirSync(path.join(outside, 'etc'));
    writeFileSync(path.join(outside, 'etc', 'passwd'), `root:${CANARY}\n`);
    writeFileSync(path.join(outside, 'passwd'), `root:${CANARY}\n`);
    const ws = makeWorkspace({ ':(top)etc/note.txt': 'root is harmless here\n', 'src/a.txt': 'inside\n' }, { git: true });
    git(ws.root, 'config', 'core.worktree', outside);
    for (const input of [{ pattern: 'root' }, { pattern: 'root', path: ':(top)etc' }, { pattern: '.' }, { pattern: 'root', include: '*' }]) {
      const result = await searchWorkspace(ws, input, signal, [engine]);
      expect(result.content).not.toContain(CANARY);
    }
    expect((await searchWorkspace(ws, { pattern: 'root', path: ':(top)etc' }, signal, [engine])).content).toBe(':(top)etc/note.txt:1: root is harmless here');
  });

  it('skips files a deny rule covers, with and without a path', async () => {
    const ws = makeWorkspace({ '.env': 'SECRET=hunter2\n', 'config/.env': 'SECRET=nested\n', 'src/a.ts': 'const SECRET = 1;\n' }, { git: true });
    const readDenied = (rel: string) => path.posix.basename(rel) === '.env';
    for (const where of [undefined, '.', 'config']) {
      const result = await searchWorkspace(ws, { pattern: 'SECRET', path: where }, signal, [engine], readDenied);
      expect(result.content).not.toContain('hunter2');
      expect(result.content).not.toContain('nested');
    }
    expect((await searchWorkspace(ws, { pattern: 'SECRET' }, signal, [engine], readDenied)).content).toBe('src/a.ts:1: const SECRET = 1;');
  });
});

describe('catastrophic regexes', () => {
  const evil = `${'a'.repeat(34)}!\n`;

  it('are stopped at the deadline with an error that says how to rewrite them', async () => {
    const ws = makeWorkspace({ 'a.txt': evil });
    const started = Date.now();
    const error = await searchInWorker({ root: ws.root, paths: ['a.txt'], pattern: '(a+)+$', flags: '', signal, deadlineMs: 300 }, () => true).catch(
      (e: Error) => e,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(String(error)).toMatch(/took longer than 0.3s and was stopped.*Rewrite it without nested repetition/);
  });

  it('are interrupted promptly by the abort signal (Ctrl+C)', async () => {
    const ws = makeWorkspace({ 'a.txt': evil });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('interrupted', 'AbortError')), 200);
    const started = Date.now();
    await expect(searchWorkspace(ws, { pattern: '(a+)+$' }, controller.signal, ['js'])).rejects.toThrow(/interrupted/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('run in a linear-time engine when ripgrep is installed, which answers at once', async (context) => {
    if (!commandOnPath('rg')) return context.skip('needs ripgrep (rg) on PATH: apt-get install ripgrep');
    const ws = makeWorkspace({ 'a.txt': evil });
    const started = Date.now();
    expect((await searchWorkspace(ws, { pattern: '(a+)+$' }, signal, ['rg'])).content).toMatch(/^No matches/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('glob confines each result, not only the pattern (finding 5)', () => {
  it('brace sets with an absolute or .. alternative, and a symlinked folder, list nothing outside', async () => {
    const outside = makeOutsideDir();
    writeFileSync(path.join(outside, 'passwd'), `root:${CANARY}\n`);
    const ws = makeWorkspace({ 'src/pass.txt': 'inside\n' });
    symlinkSync(outside, path.join(ws.root, 'linked'));
    const name = path.basename(outside);
    const patterns = [`{${outside},src}/pass*`, `.{.,}/${name}/*`, `{..,src}/${name}/*`, 'linked/*', '{linked,src}/**', '**/passwd'];
    for (const pattern of patterns) {
      const result = await run(globTool, { pattern }, makeContext(ws));
      expect(result.content, pattern).not.toMatch(/^\S*passwd$/m);
    }
    expect((await run(globTool, { pattern: `{${outside},src}/pass*` }, makeContext(ws))).content).toBe('src/pass.txt');
  });

  it('a link to a file outside is not listed, a link inside is', async () => {
    const outside = makeOutsideDir();
    writeFileSync(path.join(outside, 'secret.txt'), CANARY);
    const ws = makeWorkspace({ 'a.txt': 'a' });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(ws.root, 'out.txt'));
    symlinkSync(path.join(ws.root, 'a.txt'), path.join(ws.root, 'in.txt'));
    const result = await run(globTool, { pattern: '{out,in,a}.txt' }, makeContext(ws));
    expect(result.content).not.toContain('out.txt');
    expect(result.content).toContain('a.txt');
  });
});

describe('deny rules reach every file tool', () => {
  const readDenied = (rel: string) => rel === '.env' || rel.startsWith('secrets/');
  const files = { '.env': 'SECRET=1\n', 'secrets/key.pem': 'KEY\n', 'src/a.ts': 'x\n' };

  it('glob does not list denied files', async () => {
    const ws = makeWorkspace(files);
    const result = await run(globTool, { pattern: '**/*' }, makeContext(ws, { readDenied }));
    expect(result.content).toBe('src/a.ts');
  });

  it('list_directory does not list denied files', async () => {
    const ws = makeWorkspace(files);
    const result = await run(listDirectoryTool, { path: '.' }, makeContext(ws, { readDenied }));
    expect(result.content).not.toContain('.env');
    expect((await run(listDirectoryTool, { path: 'secrets' }, makeContext(ws, { readDenied }))).content).not.toContain('key.pem');
  });

  it('read_file refuses a denied file and says not to work around it', async () => {
    const ws = makeWorkspace(files);
    const result = await run(readFileTool, { path: '.env' }, makeContext(ws, { readDenied }));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/blocked by a read_file deny rule/);
    expect(result.content).not.toContain('SECRET');
  });
});
