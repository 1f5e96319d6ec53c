import { accessSync, closeSync, constants, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
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
  const args = ['-c', 'core.quotepath=off', 'grep', '--untracked', '-I', '-n', '-z', '--no-color', '-P'];
  if (query.ignoreCase) args.push('-i');
  args.push('-e', query.pattern);
  const pathspec = gitPathspec(query.base.relative, query.include);
  if (pathspec !== '.') args.push('--', pathspec);
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
  const { execa } = await import('execa'); // lazy: see shell.ts
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
/** Synchronous reads run in slices this long, then yield so the UI and abort stay responsive. */
const SLICE_MS = 8;

type Found = Array<[number, string]>;

/**
 * The portable engine: walks with .gitignore honoured and searches files in path order. Small
 * files are read synchronously into one reused buffer (several times faster than the promise API
 * for many small files), in short slices between which the event loop runs; big ones are streamed.
 */
async function jsGrep(query: GrepQuery, sink: MatchSink): Promise<void> {
  const lineRegex = compileRegex(query.pattern, query.ignoreCase);
  // Any line match is also a match in the whole text with the m flag, so this skips most files cheaply.
  const fileRegex = compileRegex(query.pattern, query.ignoreCase, 'm');
  const baseStats = await fs.stat(query.base.absolute);
  // Only regular files are opened: reading a FIFO or device would block the whole process.
  const paths = baseStats.isDirectory()
    ? (await walkFiles(query.root, query.base, '**/*', { stats: false })).files.map((file) => file.path).sort()
    : baseStats.isFile() ? [query.base.relative] : [];
  const accepted = query.acceptFile ? paths.filter(query.acceptFile) : paths;
  const scratch = Buffer.allocUnsafe(WHOLE_FILE_BYTES);
  let sliceStart = performance.now();
  for (const rel of accepted) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      query.signal.throwIfAborted();
      sliceStart = performance.now();
    }
    const absolute = path.join(query.root, rel);
    let found = searchSmallFile(absolute, scratch, lineRegex, fileRegex);
    if (found === 'too-big') {
      found = await searchStream(absolute, lineRegex, fileRegex, query.signal);
      sliceStart = performance.now();
    }
    for (const [line, text] of found) if (!sink(rel, line, text)) return;
  }
}

function searchSmallFile(absolute: string, scratch: Buffer, lineRegex: RegExp, fileRegex: RegExp): Found | 'too-big' {
  let size = 0;
  let fd: number | undefined;
  try {
    fd = openSync(absolute, 'r');
    size = fstatSync(fd).size;
    if (size > scratch.length) return 'too-big';
    let read = 0;
    while (read < size) {
      const n = readSync(fd, scratch, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    size = read;
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const bytes = scratch.subarray(0, size);
  if (looksBinary(bytes)) return [];
  return searchText(bytes.toString('utf8'), lineRegex, fileRegex);
}

function searchText(text: string, lineRegex: RegExp, fileRegex: RegExp): Found {
  if (!fileRegex.test(text)) return [];
  const found: Found = [];
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

async function searchStream(absolute: string, lineRegex: RegExp, fileRegex: RegExp, signal: AbortSignal): Promise<Found> {
  const found: Found = [];
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
      const lastNl = text.lastIndexOf('\n');
      // Most chunks of a big file hold no match: count their lines without splitting them.
      if (lastNl !== -1 && !fileRegex.test(text.slice(0, lastNl))) {
        for (let nl = text.indexOf('\n'); nl !== -1 && nl <= lastNl; nl = text.indexOf('\n', nl + 1)) lineNo++;
        rest = text.slice(lastNl + 1);
        continue;
      }
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
