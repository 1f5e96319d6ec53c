import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, parseDoc, userPages } from './markdown.ts';

// Issue 60: the pages written for users (README.md and docs/ without docs/contributing/) say what
// Beans does, not where it is written: they name no file of Beans' own source, tests, benchmarks or
// build scripts, and no function, class or constant of its code that the library does not export.
// Those belong in docs/contributing/.

/** Scripts a user runs, named on user pages on purpose. */
const USER_SCRIPTS = new Set(['scripts/setup.sh', 'scripts/test.sh', 'scripts/toolchain.sh']);

const tracked = execFileSync('git', ['ls-files', '-z', 'packages', 'scripts', 'bench', 'test', '.ci'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter(Boolean);
// Examples (packages/core/examples/) are programs written for users to read and run.
const isExample = (file: string) => /^packages\/[^/]+\/examples\//.test(file);
const sourceFiles = tracked.filter(
  (file) => /\.(ts|tsx|mjs|cjs|js|sh)$/.test(file) && !USER_SCRIPTS.has(file) && !file.includes('/fixtures/') && !isExample(file),
);

/** The npm packages Beans depends on, by name: `highlight.js` is a library, not Beans' highlight.ts. */
const dependencies = new Set(
  ['package.json', ...tracked.filter((file) => /^packages\/[^/]+\/package\.json$/.test(file))].flatMap((file) => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as Record<string, Record<string, string> | undefined>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(pkg[field] ?? {}));
  }),
);

/** Names a page could use for a source file: its path, and its base name (the built `.js` too). */
function fileNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of sourceFiles) {
    const base = path.basename(file);
    for (const name of [base, base.replace(/\.tsx?$/, '.js')]) if (!names.has(name) && !dependencies.has(name)) names.set(name, file);
  }
  return names;
}

/** Names that are not Beans' to hide: what Node's modules export (`readFile`), and the variables Beans reads (`HF_ENDPOINT`). */
function outsideNames(sources: string[]): Set<string> {
  const require = createRequire(import.meta.url);
  const names = new Set(
    builtinModules.filter((name) => !name.startsWith('_') && !name.startsWith('node:')).flatMap((name) => Object.keys(require(name) as object)),
  );
  for (const text of sources) for (const match of text.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]*)/g)) names.add(match[1]!);
  return names;
}

/** What @beans/core exports (its public face, the library's API): every name of its declarations. */
function publicNames(): Set<string> {
  const entry = path.join(ROOT, 'packages/core/dist/index.d.ts');
  const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const names = new Set(checker.getExportsOfModule(module).map((symbol) => symbol.name));
  // Members of exported classes and interfaces are public too (`AgentSession.lspServers()`).
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    for (const member of target.members?.values() ?? []) names.add(member.name);
  }
  return names;
}

/** Top-level functions, classes and constants of Beans' code with names no one would write for another reason. */
function internalNames(exported: Set<string>): Map<string, string> {
  const names = new Map<string, string>();
  const files = sourceFiles.filter((candidate) => /^packages\/[^/]+\/src\/.*\.tsx?$/.test(candidate));
  const texts = files.map((file) => readFileSync(path.join(ROOT, file), 'utf8'));
  const outside = outsideNames(texts);
  const declaration = /^(?:export\s+)?(?:declare\s+)?(?:async\s+)?(?:function\s*\*?|class|const|let|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  files.forEach((file, index) => {
    for (const match of texts[index]!.matchAll(declaration)) {
      const name = match[1]!;
      // A camelCase or PascalCase name of two words or more, or a CONSTANT_NAME: not an English word.
      const distinctive = /[a-z][A-Z]/.test(name) || /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(name);
      if (distinctive && !exported.has(name) && !outside.has(name) && !names.has(name)) names.set(name, file);
    }
  });
  return names;
}

describe('user pages', () => {
  const pages = userPages();
  const files = fileNames();
  const internal = internalNames(publicNames());

  it('are README.md and docs/ without docs/contributing/', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain(path.join('docs', 'configuration.md'));
    expect(pages.some((page) => page.includes('contributing'))).toBe(false);
  });

  it('name no file of Beans’ source, tests, benchmarks or build scripts', () => {
    const found: string[] = [];
    for (const page of pages) {
      // What a reader sees: HTML comments (the markers of generated parts) are not rendered.
      const text = readFileSync(path.join(ROOT, page), 'utf8').replace(/<!--[\s\S]*?-->/g, (comment) => comment.replace(/[^\n]/g, ' '));
      text.split('\n').forEach((line, index) => {
        for (const match of line.matchAll(/(?<![\w.~/-])(?:\.?\/)?((?:packages|scripts|bench|test|\.ci)\/[\w./-]+)/g)) {
          const named = match[1]!.replace(/[.,;:)]+$/, '');
          if (!USER_SCRIPTS.has(named) && !isExample(named)) found.push(`${page}:${index + 1}: ${match[1]}`);
        }
        for (const match of line.matchAll(/(?<![\w.@/-])([\w-]+\.(?:ts|tsx|mjs|cjs|js|sh))(?![\w/-])/g)) {
          if (files.has(match[1]!)) found.push(`${page}:${index + 1}: ${match[1]} (${files.get(match[1]!)})`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('name no internal function, class or constant of Beans’ code', () => {
    expect(internal.size).toBeGreaterThan(500);
    const found: string[] = [];
    for (const page of pages) {
      const doc = parseDoc(page);
      for (const { text, line } of [...doc.code, ...doc.prose]) {
        for (const match of text.matchAll(/(?<![\w$.-])([A-Za-z_$][\w$]*)/g)) {
          if (internal.has(match[1]!)) found.push(`${page}:${line}: ${match[1]} (${internal.get(match[1]!)})`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('hide no text: no raw HTML but comments (GitHub drops a `<id>` written outside code)', () => {
    const found = pages.flatMap((page) => parseDoc(page).html.map(({ text, line }) => `${page}:${line}: ${text}`));
    expect(found).toEqual([]);
  });
});
