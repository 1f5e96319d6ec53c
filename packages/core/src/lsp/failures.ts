import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { LspServerDeclaration } from './declarations.js';

// Why a language server is not running, said so that the user and the model know the diagnostics
// are off and what to do. The case that needs more than the server's own words: `npm i typescript`
// now installs TypeScript 7, the native port, which ships no tsserver.js, and typescript-language-server
// 6 cannot drive it: initialize fails with "Could not find a valid TypeScript installation".

const NO_TYPESCRIPT = /Could not find a valid TypeScript installation/i;

/** One line for a server that could not start: the diagnostics it would give are off, why, and the fix. */
export function explainStartFailure(declaration: LspServerDeclaration, root: string, message: string): string {
  const extensions = Object.keys(declaration.extensionToLanguage).join(' ');
  const off = `Diagnostics for ${extensions} files are off`;
  if (NO_TYPESCRIPT.test(message)) {
    const found = typescriptNear(declaration, root);
    if (found && found.major >= 7)
      return (
        `${off}: the language server "${declaration.name}" (typescript-language-server) cannot use TypeScript ${found.version} at ${found.dir}, ` +
        `the native port, which has no tsserver.js. Install TypeScript 5 there (npm i -D typescript@5), or point the server's ` +
        `initializationOptions.tsserver.path at a TypeScript 5 lib/tsserver.js.`
      );
    return `${off}: the language server "${declaration.name}" found no TypeScript to run. Install TypeScript 5 in the workspace (npm i -D typescript@5).`;
  }
  return `${off}: ${message}`;
}

interface FoundTypescript {
  dir: string;
  version: string;
  major: number;
}

/**
 * The TypeScript typescript-language-server would have used: the workspace's (it looks there first),
 * else the one installed beside the server itself (`npm i -g typescript-language-server typescript`).
 */
function typescriptNear(declaration: LspServerDeclaration, root: string): FoundTypescript | undefined {
  // The workspace's own, then the nearest to each file the server runs from (a script before the
  // interpreter: `node .../typescript-language-server/lib/cli.mjs`).
  const workspace = readTypescript(path.join(root, 'node_modules', 'typescript'));
  if (workspace) return workspace;
  for (const file of serverFiles(declaration).reverse()) {
    for (const dir of ancestors(path.dirname(file))) {
      const found = readTypescript(path.join(dir, 'node_modules', 'typescript'));
      if (found) return found;
    }
  }
  return undefined;
}

function readTypescript(dir: string): FoundTypescript | undefined {
  try {
    const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    if (typeof version !== 'string') return undefined;
    return { dir, version, major: Number.parseInt(version, 10) };
  } catch {
    return undefined;
  }
}

/** The server's program files, links resolved: the command itself, and scripts it runs (`node cli.mjs`). */
function serverFiles(declaration: LspServerDeclaration): string[] {
  const candidates = [declaration.command, ...declaration.args].filter((part) => !part.startsWith('-'));
  return candidates.flatMap((candidate) => {
    const found = candidate.includes('/') ? candidate : onPath(candidate);
    try {
      return found ? [realpathSync(found)] : [];
    } catch {
      return [];
    }
  });
}

function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    out.push(current);
    if (path.dirname(current) === current) return out;
  }
}
