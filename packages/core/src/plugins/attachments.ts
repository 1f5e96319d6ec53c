import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ContentPart } from '../llm/types.js';
import { mediaKindOf, readMedia } from '../tools/read-media.js';
import { isInside } from '../workspace/paths.js';

const MAX_FILE_CHARS = 100_000;

// `@src/app.ts` after a line start or a space; trailing sentence punctuation is not part of it.
const FILE_REFERENCE = /(?<=^|\s)@([\w.~/-][^\s`'"<>]*)/gm;

export interface AttachOptions {
  /** The session's read_file deny rules: a denied file is refused, as read_file refuses it. */
  readDenied?: (relativePath: string) => boolean;
}

/**
 * What `@path` references attach: text files follow the prompt's text (`Contents of a.ts:`), and
 * pictures, PDFs and notebooks become parts, each after a one-line label (`[image: shot.png 40×30,
 * 2.1 KB]`), read exactly as read_file reads them, so the model sees what the tool would show it.
 */
export interface Attachments {
  text: string;
  parts: ContentPart[];
}

/**
 * Claude Code's `@path` references. Only regular files inside the workspace are read (a link leading
 * out is not); others stay plain text. A picture, PDF or notebook that cannot be read (damaged, too
 * large, encrypted) or a file under a read deny rule is an error: nothing is sent.
 */
export async function expandAttachments(text: string, workspaceRoot: string, options: AttachOptions = {}): Promise<Attachments | { error: string }> {
  const seen = new Set<string>();
  const attached: string[] = [];
  const parts: ContentPart[] = [];
  const rootReal = await realpath(workspaceRoot);
  for (const match of text.matchAll(FILE_REFERENCE)) {
    const written = match[1]!.replace(/[.,;:!?)\]]+$/, '');
    if (written === '' || seen.has(written)) continue;
    seen.add(written);
    const read = await readReference(written, workspaceRoot, rootReal, options);
    if (read === undefined) continue;
    if ('error' in read) return read;
    if (typeof read.content === 'string') attached.push(`Contents of ${written}:\n\`\`\`\n${read.content}\n\`\`\``);
    else parts.push(...read.content);
  }
  return { text: attached.length === 0 ? text : `${text}\n\n${attached.join('\n\n')}`, parts };
}

type Read = { content: string | ContentPart[] } | { error: string };

async function readReference(written: string, root: string, rootReal: string, options: AttachOptions): Promise<Read | undefined> {
  let real: string;
  try {
    real = await realpath(path.resolve(root, written));
  } catch {
    return undefined;
  }
  if (!isInside(rootReal, real)) return undefined;
  const relative = path.relative(rootReal, real).split(path.sep).join('/');
  let handle;
  try {
    // Checked before opening: opening a named pipe would wait for a writer.
    if (!(await stat(real)).isFile()) return undefined;
    handle = await open(real, 'r');
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat();
    if (options.readDenied?.(relative)) return { error: `@${written} is blocked by a read_file deny rule; nothing was sent.` };
    const head = Buffer.alloc(16);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const media = mediaKindOf(relative, head.subarray(0, bytesRead));
    if (media) {
      try {
        const result = await readMedia(media, handle, { absolute: real, relative }, stats, undefined);
        return { content: typeof result.content === 'string' ? [{ type: 'text', text: result.content }] : result.content };
      } catch (error) {
        return { error: `@${written}: ${(error as Error).message}` };
      }
    }
    const text = (await handle.readFile()).toString('utf8');
    return { content: text.length > MAX_FILE_CHARS ? `${text.slice(0, MAX_FILE_CHARS)}\n[... cut at ${MAX_FILE_CHARS} characters]` : text.replace(/\n$/, '') };
  } finally {
    await handle.close();
  }
}

/** The label lines of attached media (`[image: shot.png 40×30, 2.1 KB]`), for the transcript. */
export function attachmentLabels(parts: readonly ContentPart[] | undefined): string[] {
  return (parts ?? []).flatMap((part) => (part.type === 'text' && /^\[(image|PDF|notebook): /.test(part.text) ? [part.text.split('\n')[0]!] : []));
}
