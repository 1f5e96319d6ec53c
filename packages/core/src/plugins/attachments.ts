import { open, realpath, stat } from '../async-fs.js';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ContentPart } from '../llm/types.js';
import { mediaKindOf, readMedia } from '../tools/read-media.js';
import { isInside } from '../workspace/paths.js';

const MAX_FILE_CHARS = 100_000;

// `@src/app.ts` after a line start or a space; trailing sentence punctuation is not part of it.
const FILE_REFERENCE = /(?<=^|\s)@([\w.~/-][^\s`'"<>]*)/gm;

// A picture's path pasted or dropped into the prompt: terminals paste a dragged file as its path,
// quoted, with escaped spaces, or as a file:// URL.
const PASTED_PICTURE =
  /(?<=^|\s)(?:file:\/\/)?(?:'(\/[^'\n]+?\.(?:png|jpe?g|gif|webp))'|"(\/[^"\n]+?\.(?:png|jpe?g|gif|webp))"|((?:\/|~\/)(?:\\ |[^\s'"])+?\.(?:png|jpe?g|gif|webp)))(?=\s|$)/gi;

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
    const written = match[1].replace(/[.,;:!?)\]]+$/, '');
    if (written === '' || seen.has(written)) continue;
    seen.add(written);
    const read = await readReference(written, workspaceRoot, rootReal, options);
    if (read === undefined) continue;
    if ('error' in read) return read;
    if (typeof read.content === 'string') attached.push(`Contents of ${written}:\n\`\`\`\n${read.content}\n\`\`\``);
    else parts.push(...read.content);
  }
  for (const match of text.matchAll(PASTED_PICTURE)) {
    const written = match[1] ?? match[2] ?? match[3].replace(/\\ /g, ' ');
    if (seen.has(written)) continue;
    seen.add(written);
    const read = await readPastedPicture(written, options);
    if (read === undefined) continue;
    if ('error' in read) return read;
    parts.push(...(read.content as ContentPart[]));
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

/**
 * A pasted path to a picture, read from wherever it is (the person pasted it: a screenshot in /tmp or
 * the desktop), under the same read deny rules; anything but a picture stays text.
 */
async function readPastedPicture(written: string, options: AttachOptions): Promise<Read | undefined> {
  const absolute = written.startsWith('~/') ? path.join(homedir(), written.slice(2)) : written;
  let real: string;
  try {
    real = await realpath(absolute);
    if (!(await stat(real)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const handle = await open(real, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const stats = await handle.stat();
    const head = Buffer.alloc(16);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const media = mediaKindOf(real, head.subarray(0, bytesRead));
    if (media?.kind !== 'image') return undefined;
    if (options.readDenied?.(real)) return { error: `${written} is blocked by a read_file deny rule; nothing was sent.` };
    try {
      return { content: (await readMedia(media, handle, { absolute: real, relative: written }, stats, undefined)).content };
    } catch (error) {
      return { error: `${written}: ${(error as Error).message}` };
    }
  } finally {
    await handle.close();
  }
}

/** The label lines of attached media (`[image: shot.png 40×30, 2.1 KB]`), for the transcript. */
export function attachmentLabels(parts: readonly ContentPart[] | undefined): string[] {
  return (parts ?? []).flatMap((part) => (part.type === 'text' && /^\[(image|PDF|notebook): /.test(part.text) ? [part.text.split('\n')[0]] : []));
}
