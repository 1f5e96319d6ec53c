import { accessSync, constants, createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import { ToolInputError } from '../errors.js';
import type { WorkspacePath } from '../workspace/paths.js';
import { walkFiles } from './file-walk.js';
import { BINARY_SNIFF_BYTES, looksBinary } from './text.js';

export type GrepEngine = 'git' | 'rg' | 'js';

export interface GrepQuery {
  /** Regex source, already stripped of a leading `(?i)`. */
  pattern: string;
  ignoreCase: boolean;
  root: string;
  base: WorkspacePath;
  /** Glob for a cheap engine-side prefilter; the caller filters exactly afterwards. */
  include?: string;
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
  const args = ['-c', 'core.quotepath=off', 'grep', '--untracked', '-I', '-n', '-z', '--no-color', '-P'];
  if (query.ignoreCase) args.push('-i');
  args.push('-e', query.pattern, '--', gitPathspec(query.base.relative, query.include));
  await streamProcess('git', args, query, (line) => {
    const a = line.indexOf('\0');
    const b = line.indexOf('\0', a + 1);
    if (a < 0 || b < 0) return true;
    return sink(line.slice(0, a), Number(line.slice(a + 1, b)), line.slice(b + 1));
  });
}

function gitPathspec(baseRel: string, include: string | undefined): string {
  const base = baseRel === '.' ? '' : `${baseRel}/`;
  // Brace sets and other extglob syntax have no pathspec form; the caller's exact filter covers them.
  if (!include || /[{}()!+@]/.test(include)) return baseRel;
  return `:(glob)${base}${include.includes('/') ? '' : '**/'}${include}`;
}

async function ripgrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  const args = ['--null', '--line-number', '--no-heading', '--color=never', '--no-messages', '--hidden', '--no-require-git', '--glob', '!.git'];
  if (query.ignoreCase) args.push('-i');
  if (query.include) args.push('--glob', query.include);
  args.push('-e', query.pattern, '--', query.base.relative);
  await streamProcess('rg', args, query, (line) => {
    const a = line.indexOf('\0');
    const b = line.indexOf(':', a + 1);
    if (a < 0 || b < 0) return true;
    const file = line.slice(0, a).replace(/^\.\//, '');
    return sink(file, Number(line.slice(a + 1, b)), line.slice(b + 1));
  });
}

/** Runs a search program from the root and feeds its output lines to `onLine`; exit 1 = no match. */
async function streamProcess(command: string, args: string[], query: GrepQuery, onLine: (line: string) => boolean): Promise<void> {
  const subprocess = execa(command, args, { cwd: query.root, stdin: 'ignore', buffer: { stdout: false, stderr: true }, reject: false, cancelSignal: query.signal });
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
  subprocess.stdout!.on('data', (chunk: Buffer) => take(rest + decoder.write(chunk)));
  const result = await subprocess;
  query.signal.throwIfAborted();
  if (stopped) return;
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

/** Files bigger than this are searched as a stream instead of read whole. */
const WHOLE_FILE_BYTES = 4 * 1024 * 1024;
const SEARCH_CONCURRENCY = 8;

/** The portable engine: walks with .gitignore honoured and searches files in parallel, in path order. */
async function jsGrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  const lineRegex = compileRegex(query.pattern, query.ignoreCase);
  // Any line match is also a match in the whole text with the m flag, so this skips most files cheaply.
  const fileRegex = compileRegex(query.pattern, query.ignoreCase, 'm');
  const baseStats = await fs.stat(query.base.absolute);
  const paths = baseStats.isDirectory()
    ? (await walkFiles(query.root, query.base, '**/*', { stats: false })).files.map((file) => file.path).sort()
    : [query.base.relative];
  const results: Array<Array<[number, string]> | undefined> = new Array(paths.length);
  let next = 0;
  let emitted = 0;
  let stopped = false;
  // Matches are emitted in path order even though files finish out of order.
  const flush = () => {
    while (!stopped && emitted < paths.length && results[emitted] !== undefined) {
      for (const [line, text] of results[emitted]!) {
        if (!sink(paths[emitted]!, line, text)) {
          stopped = true;
          break;
        }
      }
      results[emitted] = undefined;
      emitted++;
    }
  };
  const worker = async () => {
    while (!stopped && next < paths.length) {
      query.signal.throwIfAborted();
      const index = next++;
      results[index] = await searchFile(path.join(query.root, paths[index]!), lineRegex, fileRegex, query.signal);
      flush();
    }
  };
  await Promise.all(Array.from({ length: SEARCH_CONCURRENCY }, worker));
  flush();
}

async function searchFile(absolute: string, lineRegex: RegExp, fileRegex: RegExp, signal: AbortSignal): Promise<Array<[number, string]>> {
  let size: number;
  try {
    size = (await fs.stat(absolute)).size;
  } catch {
    return [];
  }
  if (size > WHOLE_FILE_BYTES) return searchStream(absolute, lineRegex, signal);
  let buffer: Buffer;
  try {
    buffer = await fs.readFile(absolute);
  } catch {
    return [];
  }
  if (looksBinary(buffer.subarray(0, BINARY_SNIFF_BYTES))) return [];
  const text = buffer.toString('utf8');
  if (!fileRegex.test(text)) return [];
  const found: Array<[number, string]> = [];
  let lineNo = 1;
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    if (end > pos || nl !== -1) {
      const line = text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end);
      if (lineRegex.test(line)) found.push([lineNo, line]);
    }
    if (nl === -1) break;
    lineNo++;
    pos = nl + 1;
  }
  return found;
}

async function searchStream(absolute: string, lineRegex: RegExp, signal: AbortSignal): Promise<Array<[number, string]>> {
  const found: Array<[number, string]> = [];
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let lineNo = 1;
  let first = true;
  const test = (line: string) => {
    const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (lineRegex.test(clean)) found.push([lineNo, clean]);
    lineNo++;
  };
  try {
    for await (const chunk of createReadStream(absolute, { signal, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      if (first) {
        first = false;
        if (looksBinary(chunk.subarray(0, BINARY_SNIFF_BYTES))) return [];
      }
      const text = rest + decoder.write(chunk);
      let pos = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', pos)) {
        test(text.slice(pos, nl));
        pos = nl + 1;
      }
      rest = text.slice(pos);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    return found;
  }
  rest += decoder.end();
  if (rest) test(rest);
  return found;
}
