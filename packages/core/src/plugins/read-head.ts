import { closeSync, openSync, readSync } from 'node:fs';
import { readFile } from '../async-fs.js';
import { headIsComplete } from './frontmatter.js';

const FIRST_CHUNK = 8192;
// Reads are synchronous, so one buffer serves every file's first chunk without garbage.
const firstChunk = Buffer.allocUnsafe(FIRST_CHUNK);

/**
 * The start of a Markdown file, up to the end of its frontmatter and first body line: listings
 * need no more, and agent prompts or skill bodies can be long. Synchronous for the same reason as
 * discovery (see discover.ts): hundreds of small reads at start-up.
 */
export function readHead(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const firstRead = readSync(fd, firstChunk, 0, FIRST_CHUNK, 0);
    const first = firstChunk.toString('utf8', 0, firstRead);
    if (firstRead < FIRST_CHUNK || headIsComplete(first)) return first;
    // A long frontmatter (or first line): keep reading in doubling chunks.
    const chunks = [Buffer.from(firstChunk)];
    let size = FIRST_CHUNK;
    for (let want = FIRST_CHUNK * 2; ; want *= 2) {
      const chunk = Buffer.allocUnsafe(want);
      const bytesRead = readSync(fd, chunk, 0, want, size);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      size += bytesRead;
      // Decoding the whole prefix keeps multi-byte characters that straddle chunks intact.
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (bytesRead < want || headIsComplete(text)) return text;
    }
    return Buffer.concat(chunks, size).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}
