import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { LineIndex } from './line-index.js';
import { looksBinary } from './text.js';

export interface LineWindowOptions {
  /** 1-based number of the first line wanted. */
  offset: number;
  maxLines: number;
  /** Budget for the returned lines' characters; reading stops at the line that would pass it. */
  maxChars: number;
  /** Lines longer than this are cut, with a note of how much was left out. */
  maxLineChars: number;
  /** Keep scanning after the window to count every line (skip for huge files). */
  countAll: boolean;
  signal: AbortSignal;
  /** Where this file's lines start, learnt by earlier reads; the scan starts at the nearest and adds to it. */
  index?: LineIndex;
  /** The file already opened (confined, see openFileConfined): read from it, not by path; the caller closes it. */
  handle?: FileHandle;
}

export interface LineWindow {
  binary: boolean;
  lines: string[];
  /** Lines in the file, or undefined when counting was skipped and the file went on. */
  totalLines: number | undefined;
  /** True when the window ended early because of maxChars. */
  stoppedForSize: boolean;
}

const NEWLINE = 0x0a;

/**
 * Streams a file and returns one window of lines, so a window deep in a large file costs a scan,
 * not the whole file in memory; with an index, the scan starts at the nearest line start an earlier
 * read saw, and a known line count is not counted again. Lines are split on LF; a trailing CR is dropped.
 */
export async function readLineWindow(absolute: string, options: LineWindowOptions): Promise<LineWindow> {
  const { offset, maxLines, maxChars, maxLineChars, index } = options;
  const start = index?.nearest(offset) ?? { line: 1, byte: 0 };
  const knownTotal = index?.totalLines;
  const countAll = options.countAll && knownTotal === undefined;
  // A UTF-8 character is at most 4 bytes: this many bytes always covers maxLineChars characters.
  const keepBytes = maxLineChars * 4 + 4;
  const lines: string[] = [];
  let chars = 0;
  let lineNo = start.line;
  let chunkStart = start.byte;
  let pieces: Buffer[] = [];
  let pieceBytes = 0;
  let lineBytes = 0;
  let windowDone = false;
  let stoppedForSize = false;
  let first = start.byte === 0; // a file is sniffed for binary content from its first byte
  let trailing = false; // the last line has bytes but no newline yet

  const stream = options.handle
    ? createReadStream(absolute, { fd: options.handle, autoClose: false, start: start.byte, signal: options.signal, highWaterMark: 1 << 16 })
    : createReadStream(absolute, { start: start.byte, signal: options.signal, highWaterMark: 1 << 16 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (first) {
        first = false;
        if (looksBinary(chunk)) return { binary: true, lines: [], totalLines: undefined, stoppedForSize: false };
      }
      let pos = 0;
      while (pos < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, pos);
        const end = nl === -1 ? chunk.length : nl;
        const inWindow = !windowDone && lineNo >= offset;
        if (inWindow && end > pos) {
          lineBytes += end - pos;
          if (pieceBytes < keepBytes) {
            const piece = chunk.subarray(pos, Math.min(end, pos + keepBytes - pieceBytes));
            pieces.push(piece);
            pieceBytes += piece.length;
          }
        }
        if (nl === -1) {
          trailing = end > pos || trailing;
          break;
        }
        trailing = false;
        if (inWindow) {
          const line = finishLine(pieces, lineBytes, maxLineChars);
          if (lines.length > 0 && chars + line.length + 1 > maxChars) {
            windowDone = true;
            stoppedForSize = true;
          } else {
            lines.push(line);
            chars += line.length + 1;
            if (lines.length >= maxLines) windowDone = true;
          }
          pieces = [];
          pieceBytes = 0;
          lineBytes = 0;
        }
        lineNo++;
        pos = nl + 1;
        index?.record(lineNo, chunkStart + pos);
      }
      chunkStart += chunk.length;
      if (windowDone && !countAll) {
        return { binary: false, lines, totalLines: knownTotal, stoppedForSize };
      }
    }
  } finally {
    stream.destroy();
  }
  if (trailing) {
    if (!windowDone && lineNo >= offset) {
      const line = finishLine(pieces, lineBytes, maxLineChars);
      if (lines.length > 0 && chars + line.length + 1 > maxChars) stoppedForSize = true;
      else lines.push(line);
    }
    lineNo++;
  }
  if (index) index.totalLines = lineNo - 1;
  return { binary: false, lines, totalLines: lineNo - 1, stoppedForSize };
}

function finishLine(pieces: Buffer[], lineBytes: number, maxLineChars: number): string {
  let text = Buffer.concat(pieces).toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  const keptBytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
  if (text.length > maxLineChars || keptBytes < lineBytes) {
    const cut = text.slice(0, maxLineChars);
    const more = lineBytes - Buffer.byteLength(cut);
    return `${cut}… [line cut: ${more.toLocaleString('en-US')} more bytes]`;
  }
  return text;
}
