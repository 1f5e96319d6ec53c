import { createReadStream } from 'node:fs';
import path from 'node:path';
import { openFileConfined } from '../workspace/confined-dir.js';

/** A match as an engine reported it: path relative to the root, 1-based line, the line's text. */
export interface ReportedMatch {
  file: string;
  line: number;
  text: string;
}

const NEWLINE = 0x0a;
const stripCr = (text: string) => (text.endsWith('\r') ? text.slice(0, -1) : text);

/**
 * The matches whose text the file really holds at that line, read through a descriptor opened from
 * the root without following a link (openFileConfined). ripgrep, git grep and the worker open files
 * by path, so a folder swapped for a link to outside while they run makes them read outside; a line
 * read that way is dropped here, as is every match of a file that cannot be opened confined now
 * (issue 43 item 6). Each file with shown matches is read once more, from the page cache.
 */
export async function confirmMatches(root: string, matches: readonly ReportedMatch[], signal: AbortSignal): Promise<ReportedMatch[]> {
  const byFile = new Map<string, ReportedMatch[]>();
  for (const match of matches) {
    let list = byFile.get(match.file);
    if (!list) byFile.set(match.file, (list = []));
    list.push(match);
  }
  const confirmed = new Set<ReportedMatch>();
  for (const [file, list] of byFile) {
    signal.throwIfAborted();
    const lines = await linesOf(root, path.resolve(root, file), new Set(list.map((match) => match.line)), signal);
    for (const match of list) if (lines?.get(match.line) !== undefined && stripCr(lines.get(match.line)!) === stripCr(match.text)) confirmed.add(match);
  }
  return matches.filter((match) => confirmed.has(match));
}

/** The wanted lines of a file (streamed, any size), or undefined when it cannot be opened confined. */
async function linesOf(root: string, absolute: string, wanted: Set<number>, signal: AbortSignal): Promise<Map<number, string> | undefined> {
  let handle;
  try {
    handle = await openFileConfined(root, absolute);
    if (!(await handle.stat()).isFile()) return undefined;
  } catch {
    await handle?.close();
    return undefined;
  }
  const found = new Map<number, string>();
  const last = Math.max(...wanted);
  let lineNo = 1;
  let pieces: Buffer[] = [];
  try {
    const stream = createReadStream(absolute, { fd: handle, autoClose: false, signal, highWaterMark: 1 << 16 });
    read: for await (const chunk of stream as AsyncIterable<Buffer>) {
      let pos = 0;
      while (pos < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, pos);
        const end = nl === -1 ? chunk.length : nl;
        if (wanted.has(lineNo)) pieces.push(chunk.subarray(pos, end));
        if (nl === -1) break;
        if (wanted.has(lineNo)) found.set(lineNo, Buffer.concat(pieces).toString('utf8'));
        pieces = [];
        lineNo++;
        pos = nl + 1;
        if (lineNo > last) break read;
      }
    }
    stream.destroy();
    if (pieces.length > 0 && wanted.has(lineNo)) found.set(lineNo, Buffer.concat(pieces).toString('utf8'));
  } finally {
    await handle.close();
  }
  return found;
}
