import { describe, expect, it } from 'vitest';
import { grepTool, GREP_MAX_MATCHES, pickGrepEngines, searchWorkspace } from '../../src/tools/grep.js';
import { commandOnPath, type GrepEngine } from '../../src/tools/grep-engines.js';
import { ignoredTree } from './fixtures.js';
import { makeContext, makeWorkspace, run } from './helpers.js';

const signal = new AbortController().signal;
const hasRg = commandOnPath('rg');
const engines: Array<[GrepEngine, boolean]> = [
  ['js', false],
  ['js', true],
  ['git', true],
  ['rg', false],
  ['rg', true],
];

const lines = (content: string) => content.split('\n\n')[0]!.split('\n');

describe.each(engines)('grep with the %s engine (git repository: %s)', (engine, git) => {
  // Skipped, with the reason in the test name's report, where ripgrep is not installed (apt-get install ripgrep).
  if (engine === 'rg' && !hasRg) {
    it.skip('needs ripgrep (rg) on PATH: apt-get install ripgrep', () => {});
    return;
  }
  const search = (ws: ReturnType<typeof makeWorkspace>, input: Parameters<typeof searchWorkspace>[1]) => searchWorkspace(ws, input, signal, [engine]);

  it('prints path:line: text and honours nested .gitignore files', async () => {
    const ws = makeWorkspace(ignoredTree, { git });
    const result = await search(ws, { pattern: 'needle' });
    expect(lines(result.content).sort()).toEqual([
      'docs/guide.txt:1: needle guide',
      'pkg/keep.log:1: needle kept',
      'pkg/lib.ts:1: export const needle = 4;',
      'src/a.ts:1: export const needle = 1;',
      'src/b.ts:2: // needle here too',
    ]);
  });

  it('filters files with include, by name anywhere or by path glob', async () => {
    const ws = makeWorkspace(ignoredTree, { git });
    expect(lines((await search(ws, { pattern: 'needle', include: '*.ts' })).content).sort()).toEqual([
      'pkg/lib.ts:1: export const needle = 4;',
      'src/a.ts:1: export const needle = 1;',
      'src/b.ts:2: // needle here too',
    ]);
    expect(lines((await search(ws, { pattern: 'needle', include: 'src/*.{ts,js}' })).content).sort()).toEqual([
      'src/a.ts:1: export const needle = 1;',
      'src/b.ts:2: // needle here too',
    ]);
  });

  it('searches one folder or one file, with regex syntax and ignore_case', async () => {
    const ws = makeWorkspace({ 'src/a.ts': 'const Alpha = 10;\nconst beta = 20;\n', 'lib/c.ts': 'alpha\n' }, { git });
    expect((await search(ws, { pattern: 'const \\w+ = \\d0', path: 'src' })).content).toBe('src/a.ts:1: const Alpha = 10;\nsrc/a.ts:2: const beta = 20;');
    expect((await search(ws, { pattern: 'alpha', ignore_case: true, path: 'src/a.ts' })).content).toBe('src/a.ts:1: const Alpha = 10;');
    expect((await search(ws, { pattern: '(?i)ALPHA', path: 'lib' })).content).toBe('lib/c.ts:1: alpha');
  });

  it('skips binary files', async () => {
    const ws = makeWorkspace({ 'data.bin': Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]), 'a.txt': 'needle\n' }, { git });
    expect((await search(ws, { pattern: 'needle' })).content).toBe('a.txt:1: needle');
  });

  it(`shows at most ${GREP_MAX_MATCHES} matches and counts the rest`, async () => {
    const ws = makeWorkspace({ 'many.txt': 'hit\n'.repeat(450), 'more.txt': 'hit\n'.repeat(50) }, { git });
    const result = await search(ws, { pattern: '^hit$' });
    expect(lines(result.content)).toHaveLength(GREP_MAX_MATCHES);
    expect(result.content).toContain('[Showing 200 of 500 matches in 2 files. Narrow the search');
  });

  it('finds matches deep in a file too big to read whole, with the right line numbers', async () => {
    const filler = 'nothing to see on this line at all\n'.repeat(150_000);
    const ws = makeWorkspace({ 'big.log': `${filler}the NEEDLE line\n${filler}NEEDLE again` }, { git });
    const result = await search(ws, { pattern: 'NEEDLE' });
    expect(result.content).toBe('big.log:150001: the NEEDLE line\nbig.log:300002: NEEDLE again');
  });

  it('cuts long lines around the match', async () => {
    const ws = makeWorkspace({ 'min.js': `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}\n` }, { git });
    const result = await search(ws, { pattern: 'NEEDLE' });
    expect(result.content.length).toBeLessThan(400);
    expect(result.content).toMatch(/^min\.js:1: …a+NEEDLEb+…$/);
  });

  it('reports an invalid regex in a way that says how to fix it', async () => {
    const ws = makeWorkspace({ 'a.txt': 'x\n' }, { git });
    await expect(search(ws, { pattern: 'foo(' })).rejects.toThrow(/Invalid regex "foo\(".*/);
  });
});

describe('grep tool', () => {
  it('prefers ripgrep when installed, then git grep in a repository, then JavaScript', () => {
    const rg: GrepEngine[] = hasRg ? ['rg'] : [];
    expect(pickGrepEngines(makeWorkspace({}, { git: true }))).toEqual([...rg, 'git', 'js']);
    expect(pickGrepEngines(makeWorkspace())).toEqual([...rg, 'js']);
  });

  it('falls through to the next engine when ripgrep rejects the regex dialect (backreferences)', async (context) => {
    if (!hasRg) return context.skip('needs ripgrep (rg) on PATH: apt-get install ripgrep');
    const ws = makeWorkspace({ 'a.txt': 'abab\nabcd\n' }, { git: true });
    for (const chain of [
      ['rg', 'git', 'js'],
      ['rg', 'js'],
    ] as GrepEngine[][]) {
      expect((await searchWorkspace(ws, { pattern: '(ab)\\1' }, signal, chain)).content).toBe('a.txt:1: abab');
    }
  });

  it('returns a plain message when nothing matches, and an error result for a bad regex', async () => {
    const ws = makeWorkspace({ 'a.txt': 'x\n' }, { git: true });
    expect((await run(grepTool, { pattern: 'absent' }, makeContext(ws))).content).toBe('No matches for /absent/ in the workspace.');
    const bad = await run(grepTool, { pattern: '[unclosed' }, makeContext(ws));
    expect(bad.isError).toBe(true);
    expect(bad.content).toContain('Invalid regex');
  });

  it('explains that an ignored folder is skipped', async () => {
    const ws = makeWorkspace(ignoredTree, { git: true });
    const result = await run(grepTool, { pattern: 'needle', path: 'node_modules' }, makeContext(ws));
    expect(result.content).toContain('node_modules is ignored by .gitignore');
  });
});
