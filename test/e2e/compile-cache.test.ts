// Node's compile cache (issue 36): kept in Beans' cache folder under the Beans and Node versions,
// never in the way of a run (an unwritable folder, or entries that no longer match the bundle).
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedOllama, type TempRepo } from './harness.ts';

const VERSION = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')).version as string;

let repo: TempRepo | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  repo?.cleanup();
  server = undefined;
  repo = undefined;
});

async function askHi(env: NodeJS.ProcessEnv) {
  server ??= await scriptedOllama({ turns: [{ text: 'hello' }, { text: 'hello' }, { text: 'hello' }, { text: 'hello' }] });
  return runBeans(['-p', 'hi'], { cwd: repo!.dir, env: { ...repo!.env, ...env, OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' } });
}

/** Every cache entry file below `dir` (Node keeps them in a folder per Node version and V8 flags). */
function entries(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

describe('compile cache', () => {
  it('fills ~/.cache/beans-agent/compile-cache/<beans>-node<node> on the first run and survives entries that no longer match', async () => {
    repo = makeTempRepo();
    const first = await askHi({});
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe('hello\n');
    const root = path.join(repo.home, '.cache', 'beans-agent', 'compile-cache');
    expect(readdirSync(root)).toEqual([`${VERSION}-node${process.versions.node}`]);
    const files = entries(root);
    // The bundle's start-up chunks (cli.cjs and those it requires for a one-shot run) each got an entry,
    // made at exit by bundle-cache.ts (Node's own entries are for main.js and the ES module chunks).
    expect(files.length).toBeGreaterThan(5);
    const chunks = path.join(root, `${VERSION}-node${process.versions.node}`, 'chunks');
    expect(readdirSync(chunks).filter((name) => /^(cli|ollama-client-\w+)\.cjs-\d+-\d+\.1\.v8$/.test(name))).toHaveLength(2);
    // Entries made by another build (same names, other bytes) must be ignored, not run.
    for (const file of files) writeFileSync(file, Buffer.alloc(statSync(file).size, 7));
    const stale = await askHi({});
    expect(stale.stderr).toBe('');
    expect(stale.code).toBe(0);
    expect(stale.stdout).toBe('hello\n');
    // V8 refused the chunks' junk entries, and the run wrote good ones in their place.
    for (const file of entries(chunks)) expect(readFileSync(file).some((byte) => byte !== 7)).toBe(true);
  });

  it('completes a chunk entry at the exit of the next two runs that use it, then keeps it', async () => {
    repo = makeTempRepo();
    const chunks = path.join(repo.home, '.cache', 'beans-agent', 'compile-cache', `${VERSION}-node${process.versions.node}`, 'chunks');
    const cliEntry = () => readdirSync(chunks).filter((name) => name.startsWith('cli.cjs-'));
    for (const generation of [1, 2, 3]) {
      expect((await askHi({})).stdout).toBe('hello\n');
      expect(cliEntry()).toEqual([expect.stringMatching(new RegExp(`\\.${generation}\\.v8$`))]);
    }
    const kept = statSync(path.join(chunks, cliEntry()[0]!)).mtimeMs;
    expect((await askHi({})).stdout).toBe('hello\n');
    expect(cliEntry()).toHaveLength(1);
    expect(statSync(path.join(chunks, cliEntry()[0]!)).mtimeMs).toBe(kept);
  });

  it('a run that writes the cache removes what only other builds could use, once unwritten for 30 days', async () => {
    repo = makeTempRepo();
    const root = path.join(repo.home, '.cache', 'beans-agent', 'compile-cache');
    const current = path.join(root, `${VERSION}-node${process.versions.node}`);
    const chunks = path.join(current, 'chunks');
    const days = (n: number) => new Date(Date.now() - n * 24 * 60 * 60 * 1000);
    const place = (file: string, age: number) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, 'x');
      utimesSync(file, days(age), days(age));
    };
    // An upgrade left the folders of older versions; a rebuild left entries of chunks that are gone.
    place(path.join(root, '0.0.1-node22.0.0', 'chunks', 'cli.cjs-10-10.3.v8'), 45);
    place(path.join(root, '0.0.2-node22.0.0', 'chunks', 'cli.cjs-10-10.3.v8'), 3);
    for (const folder of ['0.0.1-node22.0.0', '0.0.1-node22.0.0/chunks']) utimesSync(path.join(root, folder), days(45), days(45));
    place(path.join(chunks, 'gone-AAAA.cjs-10-10.3.v8'), 45);
    place(path.join(chunks, 'gone-BBBB.cjs-10-10.3.v8'), 3);
    place(path.join(chunks, 'cli.cjs-10-10.1.v8.4242'), 45);
    expect((await askHi({})).stdout).toBe('hello\n');
    expect(readdirSync(root).sort()).toEqual(['0.0.2-node22.0.0', `${VERSION}-node${process.versions.node}`]);
    const left = readdirSync(chunks);
    expect(left).toContain('gone-BBBB.cjs-10-10.3.v8');
    expect(left).not.toContain('gone-AAAA.cjs-10-10.3.v8');
    expect(left).not.toContain('cli.cjs-10-10.1.v8.4242');
    expect(left.filter((name) => /^cli\.cjs-\d+-\d+\.1\.v8$/.test(name))).toHaveLength(1);
    // An entry of this bundle is kept however old it is: it is what the next run reads.
    const entry = path.join(
      chunks,
      left.find((name) => name.startsWith('cli.cjs-'))!,
    );
    utimesSync(entry, days(90), days(90));
    place(path.join(chunks, 'gone-CCCC.cjs-10-10.3.v8'), 45);
    await askHi({});
    expect(readdirSync(chunks)).toContain(path.basename(entry).replace('.1.v8', '.2.v8'));
    expect(readdirSync(chunks)).not.toContain('gone-CCCC.cjs-10-10.3.v8');
  });

  it('follows XDG_CACHE_HOME, and runs without a cache when the folder cannot be made', async () => {
    repo = makeTempRepo();
    const xdg = path.join(repo.home, 'xdg-cache');
    expect((await askHi({ XDG_CACHE_HOME: xdg })).stdout).toBe('hello\n');
    expect(entries(path.join(xdg, 'beans-agent', 'compile-cache')).length).toBeGreaterThan(5);
    // A file where the folder should be: nothing can be cached, and nothing is said about it.
    const blocked = path.join(repo.home, 'not-a-folder');
    writeFileSync(blocked, '');
    const run = await askHi({ XDG_CACHE_HOME: blocked });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('hello\n');
  });
});
