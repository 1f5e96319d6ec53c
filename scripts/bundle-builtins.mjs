// Node's built-in modules required, not imported, in the bundle's chunks. For an ES module import
// (`import { readFileSync } from "node:fs"`) Node builds a facade module of the whole built-in and
// reads every one of its exports, which also runs lazy getters (node:fs then loads its stream classes,
// node:crypto its webcrypto); for the dozen built-ins a start-up imports that cost ~5 ms of CPU more
// than require() of the same modules. esbuild writes the imports; this pass turns each into a
// `const ... = require(...)` on the first line of its chunk, the banner's, which defines `require`
// (bundle.mjs). Bindings of a built-in import are copies taken when the chunk loads either way.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { init, parse } from 'es-module-lexer';

const IMPORT = /^import\s*([\s\S]*?)\s*from\s*["'][^"']+["']$/;
const SIDE_EFFECT = /^import\s*["'][^"']+["']$/;

/** `{ a, b as c }` -> `{ a, b: c }`. */
const destructuring = (named) => named.replace(/\b([\w$]+)\s+as\s+([\w$]+)/g, '$1: $2');

/** The require() statements that stand for one import statement of `id`. */
function requiresFor(statement, id, file) {
  const call = `require(${JSON.stringify(id)})`;
  if (SIDE_EFFECT.test(statement)) return `${call};`;
  const clause = IMPORT.exec(statement)?.[1];
  if (clause === undefined) throw new Error(`bundle: ${file}: cannot read the import of ${id}: ${statement}`);
  const named = /^(?:([\w$]+)\s*,\s*)?(\{[\s\S]*\})$/.exec(clause);
  if (named) return named[1] ? `const ${named[1]} = ${call}; const ${destructuring(named[2])} = ${named[1]};` : `const ${destructuring(named[2])} = ${call};`;
  // A default or namespace import is the module object itself (a namespace also has `default`:
  // no chunk may read it, checked below).
  const whole = /^(?:\*\s*as\s+([\w$]+)|([\w$]+))$/.exec(clause);
  if (whole) return `const ${whole[1] ?? whole[2]} = ${call};`;
  throw new Error(`bundle: ${file}: cannot read the import of ${id}: ${statement}`);
}

/** Rewrites the chunks in `outdir` that carry `banner`; returns how many imports it turned into requires. */
export async function requireBuiltins(outdir, banner) {
  await init;
  let rewritten = 0;
  for (const name of readdirSync(outdir)) {
    if (!/\.m?js$/.test(name)) continue;
    const file = path.join(outdir, name);
    const source = readFileSync(file, 'utf8');
    // main.js starts with a `#!` line.
    const head = source.startsWith('#!') ? source.slice(0, source.indexOf('\n') + 1) + banner : banner;
    if (!source.startsWith(head)) continue;
    const [imports] = parse(source, name);
    const hoisted = [];
    let body = '';
    let at = head.length;
    for (const entry of imports) {
      if (entry.d !== -1 || entry.ss < head.length || !entry.n || !isBuiltin(entry.n)) continue;
      const statement = source.slice(entry.ss, entry.se);
      if (!statement.startsWith('import')) continue;
      const requires = requiresFor(statement, entry.n, name);
      for (const binding of requires.matchAll(/const ([\w$]+) = require/g)) {
        if (new RegExp(`\\b${binding[1].replace(/\$/g, '\\$')}\\.default\\b`).test(source))
          throw new Error(`bundle: ${name} reads ${binding[1]}.default of ${entry.n}; keep that import`);
      }
      hoisted.push(requires);
      // Blanked, not cut: every other character keeps its line and column.
      const end = entry.se + (source[entry.se] === ';' ? 1 : 0);
      body += source.slice(at, entry.ss) + source.slice(entry.ss, end).replace(/[^\n]/g, ' ');
      at = end;
      rewritten += 1;
    }
    if (hoisted.length === 0) continue;
    body += source.slice(at);
    // On the banner's line: the lines below keep their numbers.
    writeFileSync(file, `${head} ${hoisted.join(' ')}${body}`);
  }
  return rewritten;
}
