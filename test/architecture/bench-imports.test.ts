import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// The benchmarks run under plain Node and borrow the tests' servers from test/support; a support file
// that imports Vitest (its hooks) throws there. Importing them all in a plain Node says so here.
const root = path.resolve(import.meta.dirname, '../..');

function supportFilesOfBenchmarks(): string[] {
  const files = new Set<string>();
  for (const name of readdirSync(path.join(root, 'bench')).filter((file) => file.endsWith('.mjs'))) {
    const source = readFileSync(path.join(root, 'bench', name), 'utf8');
    for (const match of source.matchAll(/from '(\.\.\/test\/support\/[^']+)'/g)) files.add(path.resolve(root, 'bench', match[1]!));
  }
  return [...files].sort();
}

describe('the benchmarks', () => {
  it('import test/support files that load outside Vitest', () => {
    const files = supportFilesOfBenchmarks();
    expect(files.length).toBeGreaterThan(3);
    const script = `for (const file of ${JSON.stringify(files.map((file) => pathToFileURL(file).href))}) await import(file);`;
    expect(() => execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, stdio: 'pipe' })).not.toThrow();
  });
});
