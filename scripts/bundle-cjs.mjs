// The bundle's chunks as CommonJS scripts, so that their V8 code cache can be made after they ran.
// Node's compile cache serialises an ES module right after compiling it, before any of its functions
// ran, and keeps that entry: every start compiled again the functions it calls (a quarter of the
// instructions to a first request). A script compiled with vm.Script can be serialised at exit with
// what the run compiled (packages/cli/src/bundle-cache.ts). esbuild splits chunks only as ES modules,
// so each chunk is turned into CommonJS here with esbuild's own transform (imports of other chunks
// become require() with live bindings through getters). A chunk with top-level await (Ink's Yoga), and
// any chunk that imports one, stays an ES module; it imports the CommonJS chunks through Node.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';
import { init, parse } from 'es-module-lexer';

/** Specifiers of chunks beside this one that a module imports statically. */
const staticChunkImports = (source) =>
  parse(source)[0]
    .filter((entry) => entry.d === -1 && entry.n?.startsWith('./'))
    .map((entry) => entry.n.slice(2));

const SCRIPT = {
  format: 'cjs',
  platform: 'node',
  loader: 'js',
  target: 'node22',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'silent',
  // ES modules are strict; their scripts must stay so.
  banner: '"use strict";const __beansUrl=require("node:url").pathToFileURL(__filename).href;',
  define: { 'import.meta.url': '__beansUrl', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
};

/**
 * Converts the `.mjs` chunks of `outdir` to `.cjs` where they allow it; `head` is the banner the
 * chunks start with (its createRequire is not needed in CommonJS). Returns the converted names.
 */
export async function chunksToCommonJs(outdir, head) {
  await init;
  const names = readdirSync(outdir).filter((name) => name.endsWith('.mjs'));
  const sources = new Map(names.map((name) => [name, readFileSync(path.join(outdir, name), 'utf8')]));
  // Each chunk as CommonJS, or left an ES module when esbuild cannot convert it (top-level await).
  const scripts = new Map();
  const esm = new Set();
  for (const [name, source] of sources) {
    if (!source.startsWith(head)) throw new Error(`bundle: ${name} does not start with the require banner; check scripts/bundle-cjs.mjs`);
    try {
      scripts.set(name, (await transform(source.slice(head.length), SCRIPT)).code);
    } catch {
      esm.add(name);
    }
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, source] of sources) {
      if (esm.has(name) || !staticChunkImports(source).some((target) => esm.has(target))) continue;
      esm.add(name);
      grew = true;
    }
  }
  const renamed = (text) =>
    text.replace(/(["'])\.\/([\w.-]+)\.mjs\1/g, (match, quote, base) => (esm.has(`${base}.mjs`) ? match : `${quote}./${base}.cjs${quote}`));
  const converted = [];
  for (const [name, source] of sources) {
    const file = path.join(outdir, name);
    if (esm.has(name)) {
      writeFileSync(file, renamed(source));
      continue;
    }
    writeFileSync(path.join(outdir, name.replace(/\.mjs$/, '.cjs')), dynamicImports(renamed(scripts.get(name)), name));
    rmSync(file);
    converted.push(name);
  }
  return converted;
}

/**
 * A script's import() has no module to resolve from: another chunk is required (the same module
 * registry as the static requires), anything else (a package, a built-in, a computed name) goes
 * through the importer main.js puts on globalThis, which resolves from the same folder.
 */
function dynamicImports(script, name) {
  const [imports] = parse(script, name);
  let out = '';
  let at = 0;
  for (const entry of imports) {
    if (entry.d < 0) continue;
    if (entry.n?.startsWith('./') && entry.n.endsWith('.cjs')) {
      const end = script.indexOf(')', entry.e) + 1;
      out += `${script.slice(at, entry.ss)}Promise.resolve().then(()=>require(${JSON.stringify(entry.n)}))`;
      at = end;
    } else {
      out += `${script.slice(at, entry.ss)}globalThis[Symbol.for("beans.import")]`;
      at = entry.ss + 'import'.length;
    }
  }
  return out + script.slice(at);
}
