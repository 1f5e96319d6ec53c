// scripts/bundle-cjs.mjs turns the bundle's ES module chunks into CommonJS scripts (issue 36: their
// code cache can then be made after they ran). What must not change in the conversion: live bindings
// across chunks, strict mode, import.meta.url, import() of a chunk and of a built-in, and a chunk with
// top-level await (and its importers) staying an ES module that still reaches the converted chunks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script without types
import { chunksToCommonJs } from '../../scripts/bundle-cjs.mjs';

const BANNER =
  "import { createRequire as __beansRequire } from 'node:module'; const require = (globalThis[Symbol.for('beans.require')] ??= __beansRequire(import.meta.url));";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function chunks(files: Record<string, string>): string {
  dir = mkdtempSync(path.join(tmpdir(), 'bundle-cjs-'));
  for (const [name, code] of Object.entries(files)) writeFileSync(path.join(dir, name), name.endsWith('.mjs') ? `${BANNER}\n${code}` : code);
  return dir;
}

describe('chunksToCommonJs', () => {
  it('keeps live bindings, strict mode, import.meta.url and import() of chunks and built-ins', async () => {
    const out = chunks({
      'counter.mjs': 'export let count = 0; export function bump() { count += 1; } export const here = import.meta.url;',
      'lazy.mjs': 'export const answer = 42;',
      'cli.mjs': [
        'import { count, bump, here } from "./counter.mjs";',
        'bump(); bump();',
        'export async function report() {',
        '  const lazy = await import("./lazy.mjs");',
        '  const os = await import("node:os");',
        '  let strict = false; try { undeclared = 1; } catch { strict = true; }',
        '  return { count, here, answer: lazy.answer, os: typeof os.platform, strict };',
        '}',
      ].join('\n'),
      'main.js': [
        'import { createRequire } from "node:module";',
        'globalThis[Symbol.for("beans.import")] = (specifier) => import(specifier);',
        'const { report } = createRequire(import.meta.url)("./cli.cjs");',
        'console.log(JSON.stringify(await report()));',
      ].join('\n'),
    });
    expect((await chunksToCommonJs(out, BANNER)).sort()).toEqual(['cli.mjs', 'counter.mjs', 'lazy.mjs']);
    expect(readdirSync(out).sort()).toEqual(['cli.cjs', 'counter.cjs', 'lazy.cjs', 'main.js']);
    const printed = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', `import ${JSON.stringify(path.join(out, 'main.js'))};`], { encoding: 'utf8', cwd: out }),
    );
    expect(printed).toEqual({ count: 2, here: `file://${path.join(out, 'counter.cjs')}`, answer: 42, os: 'function', strict: true });
  });

  it('leaves a chunk with top-level await, and its importers, ES modules that import the converted chunks', async () => {
    const out = chunks({
      'shared.mjs': 'export const greet = (name) => `hi ${name}`;',
      'layout.mjs': 'import { greet } from "./shared.mjs"; export const engine = await Promise.resolve(greet("yoga"));',
      'ui.mjs': 'import { engine } from "./layout.mjs"; export const screen = engine;',
    });
    expect(await chunksToCommonJs(out, BANNER)).toEqual(['shared.mjs']);
    expect(readdirSync(out).sort()).toEqual(['layout.mjs', 'shared.cjs', 'ui.mjs']);
    const printed = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `const { screen } = await import(${JSON.stringify(path.join(out, 'ui.mjs'))}); console.log(screen);`],
      { encoding: 'utf8' },
    );
    expect(printed.trim()).toBe('hi yoga');
  });
});
