import { open, readFile } from 'node:fs/promises';
import { headIsComplete } from './frontmatter.js';

const FIRST_CHUNK = 4096;

/**
 * The start of a Markdown file, up to the end of its frontmatter and first body line: listings
 * need no more, and agent prompts or skill bodies can be long.
 */
export async function readHead(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    // Chunks double in size, so even a long file takes few reads and few re-decodes.
    for (let want = FIRST_CHUNK; ; want *= 2) {
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(chunk, 0, want, size);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
      size += bytesRead;
      // Decoding the whole prefix each time keeps multi-byte characters that straddle chunks intact.
      const text = Buffer.concat(chunks, size).toString('utf8');
      if (bytesRead < want || headIsComplete(text)) return text;
    }
    return Buffer.concat(chunks, size).toString('utf8');
  } finally {
    await handle.close();
  }
}

export async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8');
}
