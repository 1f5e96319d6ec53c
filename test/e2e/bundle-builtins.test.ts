// Issue 36: the bundle's chunks require() Node's built-in modules instead of importing them
// (scripts/bundle-builtins.mjs): an ES module import makes Node build a facade of the whole built-in,
// reading every export and running its lazy getters (~5 ms of CPU before the first request). Only
// the banner's `node:module`, which defines `require`, stays an import. Most chunks are CommonJS
// scripts by now (scripts/bundle-cjs.mjs); main.js and the chunks left ES modules are checked.
import { readFileSync, readdirSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { init, parse } from 'es-module-lexer';
import { describe, expect, it } from 'vitest';

const BUNDLE = path.resolve(import.meta.dirname, '../../packages/cli/dist/bundle');

describe('the built bundle', () => {
  it('imports no Node built-in as an ES module but the banner’s node:module', async () => {
    await init;
    const imported: string[] = [];
    const names = readdirSync(BUNDLE);
    expect(names.filter((file) => file.endsWith('.cjs')).length).toBeGreaterThan(20);
    let modules = 0;
    for (const name of names.filter((file) => /\.m?js$/.test(file))) {
      const source = readFileSync(path.join(BUNDLE, name), 'utf8');
      const [imports] = parse(source, name);
      // The banner is the first line, after main.js's `#!` line.
      const banner = source.indexOf('\n', source.startsWith('#!') ? source.indexOf('\n') + 1 : 0);
      for (const entry of imports) {
        if (entry.d !== -1 || !entry.n || !isBuiltin(entry.n)) continue;
        if (entry.n === 'node:module' && entry.se < banner) continue;
        imported.push(`${name}: ${source.slice(entry.ss, entry.se)}`);
      }
      modules += 1;
    }
    expect(modules).toBeGreaterThan(1);
    expect(imported).toEqual([]);
  });
});
