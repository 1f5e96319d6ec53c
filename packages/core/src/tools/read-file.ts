import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { openFileConfined } from '../workspace/confined-dir.js';
import { resolveInWorkspace, type WorkspacePath } from '../workspace/paths.js';
import { resolveReadable } from './saved-output.js';
import { MAX_TEXT_FILE_BYTES } from './file-io.js';
import { lineIndexFor } from './line-index.js';
import { readLineWindow } from './line-window.js';
import { missingFileMessage } from './missing-file.js';
import { guarded } from './result.js';
import { formatBytes, numberLines } from './text.js';
import { defineTool, type ToolContext, type ToolResult } from './tool.js';
import { textLineWindow } from './editor-files.js';
import { isInside } from '../workspace/paths.js';
import { lazily } from '../lazily.js';
import { MAX_PDF_PAGES, mediaKindOf, readMedia } from './read-media.js';

const READ_DEFAULT_LINES = 2000;
const READ_MAX_LINE_CHARS = 2000;
/** Stays under the executor's per-result cut, so a window is never cut in its middle. */
const READ_MAX_CHARS = 36_000;

const schema = lazily(() =>
  z.object({
    path: z.string().describe('Relative to the workspace root, or absolute inside it'),
    offset: z.number().int().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    pages: z.string().optional().describe(`PDF pages, e.g. "3" or "1-5" (at most ${MAX_PDF_PAGES})`),
  }),
);

export const readFileTool = defineTool({
  name: 'read_file',
  kind: 'read',
  description:
    `Read a file: up to ${READ_DEFAULT_LINES} lines from offset, as "N<TAB>text" (that prefix is not in the file); long lines are cut. ` +
    'Images (PNG, JPEG, GIF, WebP) come back as pictures, PDFs as text by page, notebooks as cells with outputs. ' +
    'For big files read a window (offset/limit) or grep first. Read a file before editing it.',
  schema,
  summarize: (input) => (input.offset || input.limit ? `${input.path}:${input.offset ?? 1}+${input.limit ?? READ_DEFAULT_LINES}` : input.path),
  ruleSubject: (input) => input.path,
  async execute(input, ctx) {
    return guarded(ctx.signal, async () => {
      const target = resolveReadable(ctx, input.path);
      // Opened once, through folders held open from the workspace root without following a link,
      // and everything below reads that descriptor: a folder swapped for a link to outside after the
      // path was checked makes the open fail instead of reading outside (issue 43 item 6).
      const inWorkspace = target.relative !== target.absolute;
      let handle: FileHandle;
      try {
        handle = await openFileConfined(inWorkspace ? resolveInWorkspace(ctx.workspace, '.').absolute : path.dirname(target.absolute), target.absolute);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') throw new ToolInputError(await missingFileMessage(target));
        throw error;
      }
      try {
        return await readOpened(handle, target, input, ctx);
      } finally {
        await handle.close();
      }
    });
  },
});

async function readOpened(
  handle: FileHandle,
  target: WorkspacePath,
  input: { offset?: number; limit?: number; pages?: string },
  ctx: ToolContext,
): Promise<ToolResult> {
  const stats = await handle.stat();
  if (stats.isDirectory()) throw new ToolInputError(`${target.relative} is a directory. Use list_directory to see what it holds, or glob to find files in it.`);
  if (!stats.isFile()) throw new ToolInputError(`${target.relative} is not a regular file (a device, socket or pipe); read_file only reads files.`);
  // Also a hard link to a denied file, which a path rule alone would miss.
  if (ctx.readDenied?.(target.relative))
    throw new ToolInputError(`${target.relative} is blocked by a read_file deny rule (the file, or a link to it). Do not try to read it another way.`);
  const media = mediaKindOf(target.relative, await readHead(handle));
  if (media) {
    const result = await readMedia(media, handle, target, stats, input.pages);
    ctx.state.fileTimes.set(target.absolute, stats.mtimeMs);
    return result;
  }
  if (input.pages !== undefined) throw new ToolInputError(`pages is for PDF files; ${target.relative} is not one. Use offset and limit for text.`);
  const windowed = input.offset !== undefined || input.limit !== undefined;
  if (stats.size > MAX_TEXT_FILE_BYTES && !windowed) {
    throw new ToolInputError(
      `${target.relative} is ${formatBytes(stats.size)}, too large to read whole. Find the lines you need with grep, then read a window with offset and limit (e.g. offset: 1, limit: 200).`,
    );
  }
  const offset = input.offset ?? 1;
  const shape = { offset, maxLines: input.limit ?? READ_DEFAULT_LINES, maxChars: READ_MAX_CHARS, maxLineChars: READ_MAX_LINE_CHARS };
  // An editor's buffer, unsaved changes included, when it offers one (saved tool outputs stay on disk).
  const fromEditor = ctx.editorFiles?.readText && stats.size <= MAX_TEXT_FILE_BYTES && !isSavedOutput(ctx, target.absolute);
  const window = fromEditor
    ? textLineWindow(await ctx.editorFiles!.readText!(target.absolute, ctx.signal), shape)
    : await readLineWindow(target.absolute, {
        ...shape,
        countAll: stats.size <= MAX_TEXT_FILE_BYTES,
        signal: ctx.signal,
        index: lineIndexFor(target.absolute, stats),
        handle,
      });
  if (window.binary) {
    throw new ToolInputError(
      `${target.relative} looks like a binary file (${formatBytes(stats.size)}, contains NUL bytes); read_file only reads text. Inspect it with shell instead (e.g. \`file\`, \`xxd ${target.relative} | head\`).`,
    );
  }
  ctx.state.fileTimes.set(target.absolute, stats.mtimeMs);
  const total = window.totalLines;
  if (window.lines.length === 0) {
    if (total === 0) return { content: `(${target.relative} is empty)` };
    throw new ToolInputError(`offset ${offset} is past the end of ${target.relative}, which has ${total ?? 'fewer'} lines.`);
  }
  const last = offset + window.lines.length - 1;
  let content = numberLines(window.lines, offset);
  const more = total === undefined || last < total;
  if (more || offset > 1) {
    const of = total === undefined ? '' : ` of ${total}`;
    const why = window.stoppedForSize ? ' (output size limit reached)' : '';
    const next = more ? ` Read on with offset: ${last + 1}.` : '';
    content += `\n\n[Lines ${offset}-${last}${of} shown${why}.${next}]`;
  }
  return { content };
}

/** The first bytes, which say whether a file is a picture or a PDF. */
async function readHead(handle: FileHandle): Promise<Buffer> {
  const head = Buffer.alloc(16);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  return head.subarray(0, bytesRead);
}

/** Whole outputs saved beside the session: never an editor buffer. */
function isSavedOutput(ctx: Pick<ToolContext, 'outputDir'>, absolute: string): boolean {
  return ctx.outputDir !== undefined && isInside(ctx.outputDir, absolute);
}
