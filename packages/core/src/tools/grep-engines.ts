import { accessSync, constants, lstatSync } from 'node:fs';
import * as fs from '../async-fs.js';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { ToolInputError } from '../errors.js';
import type { WorkspacePath } from '../workspace/paths.js';
import { walkFiles } from './file-walk.js';
import { REGEX_DEADLINE_MS, searchInWorker } from './grep-worker.js';

export type GrepEngine = 'git' | 'rg' | 'js';

export interface GrepQuery {
  /** Regex source, already stripped of a leading `(?i)`. */
  pattern: string;
  ignoreCase: boolean;
  root: string;
  base: WorkspacePath;
  /** Glob for a cheap engine-side prefilter; the caller filters exactly afterwards. */
  include?: string;
  /** The caller's exact file filter (include), applied before reading when the engine walks itself. */
  acceptFile?: (file: string) => boolean;
  signal: AbortSignal;
}

/** Receives each match (path relative to the root); returns false to stop the search early. */
export type MatchSink = (file: string, line: number, text: string) => boolean;

/** Thrown when an engine cannot serve a query (no PCRE, not a repository...); the next one is tried. */
export class EngineUnavailable extends Error {}

const onPath = new Map<string, boolean>();

export function commandOnPath(name: string): boolean {
  let found = onPath.get(name);
  if (found === undefined) {
    found = (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
      try {
        accessSync(path.join(dir, name), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
    onPath.set(name, found);
  }
  return found;
}

export function compileRegex(pattern: string, ignoreCase: boolean, extraFlags = ''): RegExp {
  try {
    return new RegExp(pattern, (ignoreCase ? 'i' : '') + extraFlags);
  } catch (error) {
    throw new ToolInputError(
      `Invalid regex ${JSON.stringify(pattern)}: ${(error as Error).message}. Escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.`,
    );
  }
}

export async function runEngine(engine: GrepEngine, query: GrepQuery, sink: MatchSink): Promise<void> {
  if (engine === 'git') return gitGrep(query, sink);
  if (engine === 'rg') return ripgrep(query, sink);
  return jsGrep(query, sink);
}

async function gitGrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  // The repository's own config must not move the search elsewhere (core.worktree=/) or run a
  // command (core.fsmonitor): git's folder and work tree are pinned to the workspace, the monitor is
  // off, and every pathspec is literal, so a folder named `:(top)etc` is only that folder.
  const args = [
    ...gitDirArgs(query.root),
    '--literal-pathspecs',
    '-c',
    'core.quotepath=off',
    '-c',
    'core.fsmonitor=false',
    'grep',
    '--untracked',
    '-I',
    '-n',
    '-z',
    '--no-color',
    '-P',
  ];
  if (query.ignoreCase) args.push('-i');
  args.push('-e', query.pattern);
  // include has no literal pathspec form; the caller's exact filter applies it to each reported file.
  if (query.base.relative !== '.') args.push('--', query.base.relative);
  await streamProcess('git', args, query, (line) => {
    const a = line.indexOf('\0');
    const b = line.indexOf('\0', a + 1);
    if (a < 0 || b < 0) return true;
    return sink(line.slice(0, a), Number(line.slice(a + 1, b)), line.slice(b + 1));
  });
}

/**
 * `--work-tree` always; `--git-dir` too when the workspace holds a `.git` folder. A `.git` file (a
 * linked worktree or submodule) is left to git to follow, and the work tree stays pinned either way.
 */
function gitDirArgs(root: string): string[] {
  const dotGit = path.join(root, '.git');
  let isDir: boolean;
  try {
    isDir = lstatSync(dotGit).isDirectory();
  } catch {
    isDir = false;
  }
  return [...(isDir ? [`--git-dir=${dotGit}`] : []), `--work-tree=${root}`];
}

async function ripgrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  const args = [
    '--no-config',
    '--null',
    '--with-filename',
    '--line-number',
    '--no-heading',
    '--color=never',
    '--no-messages',
    '--hidden',
    '--no-require-git',
    '--glob',
    '!.git',
  ];
  if (query.ignoreCase) args.push('-i');
  // rg's --glob is only a prefilter; `!` or a leading `/` would change its meaning, so those are left to the caller's filter.
  if (query.include && !/^[!/]/.test(query.include)) args.push('--glob', query.include);
  args.push('-e', query.pattern, '--', query.base.relative);
  await streamProcess('rg', args, query, (line) => {
    const a = line.indexOf('\0');
    const b = line.indexOf(':', a + 1);
    if (a < 0 || b < 0) return true;
    const file = line.slice(0, a).replace(/^\.\//, '');
    return sink(file, Number(line.slice(a + 1, b)), line.slice(b + 1));
  });
}

/** Git variables that would point the search at another repository or work tree are dropped. */
function searchEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (
      !/^(GIT_(DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|LITERAL_PATHSPECS|GLOB_PATHSPECS|NOGLOB_PATHSPECS|ICASE_PATHSPECS|CONFIG.*)|RIPGREP_CONFIG_PATH)$/.test(
        name,
      )
    )
      env[name] = value;
  return env;
}

/** Runs a search program from the root and feeds its output lines to `onLine`; exit 1 = no match. */
async function streamProcess(command: string, args: string[], query: GrepQuery, onLine: (line: string) => boolean): Promise<void> {
  const { execa } = await import('execa'); // lazy: see shell.ts
  const subprocess = execa(command, args, {
    cwd: query.root,
    stdin: 'ignore',
    buffer: { stdout: false, stderr: true },
    reject: false,
    cancelSignal: query.signal,
    timeout: REGEX_DEADLINE_MS,
    extendEnv: false,
    env: { ...searchEnvironment(), GIT_LITERAL_PATHSPECS: '1' },
  });
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let stopped = false;
  const take = (text: string) => {
    if (stopped) return;
    let pos = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', pos)) {
      if (!onLine(text.slice(pos, nl))) {
        stopped = true;
        subprocess.kill();
        return;
      }
      pos = nl + 1;
    }
    rest = text.slice(pos);
  };
  subprocess.stdout.on('data', (chunk: Buffer) => take(rest + decoder.write(chunk)));
  const result = await subprocess;
  query.signal.throwIfAborted();
  if (stopped) return;
  if (result.timedOut) {
    throw new ToolInputError(
      `The regex ${JSON.stringify(query.pattern)} took longer than ${REGEX_DEADLINE_MS / 1000}s and was stopped. Rewrite it without nested repetition, or search for a literal part of it.`,
    );
  }
  take(rest + decoder.end() + (rest ? '\n' : ''));
  if (result.exitCode === 0 || result.exitCode === 1) return;
  const stderr = String(result.stderr ?? '').trim();
  if (/USE_LIBPCRE|not a git repository|unknown option|unrecognized/i.test(stderr) || result.exitCode === undefined) {
    throw new EngineUnavailable(stderr || result.message);
  }
  // The engine rejected the regex; JS may still accept it (different dialect), so let it try.
  try {
    new RegExp(query.pattern);
  } catch {
    throw new ToolInputError(`Invalid regex ${JSON.stringify(query.pattern)}: ${stderr.replace(/^fatal: /, '')}`);
  }
  throw new EngineUnavailable(stderr);
}

/**
 * The portable engine: walks with .gitignore honoured and searches files in path order, in a
 * worker thread with a deadline (see grep-worker.ts), so no regex can hang Beans.
 */
async function jsGrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  compileRegex(query.pattern, query.ignoreCase); // a bad regex is the model's to fix, reported here
  const baseStats = await fs.stat(query.base.absolute);
  // Only regular files are opened: reading a FIFO or device would block the whole process.
  const paths = baseStats.isDirectory()
    ? (await walkFiles(query.root, query.base, '**/*', { stats: false })).files.map((file) => file.path).sort()
    : baseStats.isFile()
      ? [query.base.relative]
      : [];
  const accepted = query.acceptFile ? paths.filter(query.acceptFile) : paths;
  if (accepted.length === 0) return;
  await searchInWorker({ root: query.root, paths: accepted, pattern: query.pattern, flags: query.ignoreCase ? 'i' : '', signal: query.signal }, sink);
}
