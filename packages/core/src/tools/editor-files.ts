import type { Stats } from 'node:fs';
import { ToolInputError } from '../errors.js';
import type { WorkspacePath } from '../workspace/paths.js';
import { readTextFile, workspaceTempDir, writeFileAtomic } from './file-io.js';
import type { LineWindow } from './line-window.js';
import { cutLine, splitLines } from './text.js';
import type { EditorFiles, ToolContext } from './tool.js';

// The interface lives with the tool context it is part of (tool.ts): tool.ts importing this file
// would close a circle through file-io.ts.
export type { EditorFiles };

/** A file's text for editing: the editor's buffer when it offers one, else the disk (checked as before). */
export async function readEditableText(
  editor: EditorFiles | undefined,
  target: WorkspacePath,
  stats: Stats,
  root: string,
  signal?: AbortSignal,
): Promise<string> {
  if (!editor?.readText || !stats.isFile()) return readTextFile(target, stats, root);
  const text = await editor.readText(target.absolute, signal);
  if (text.includes('\u0000')) throw new ToolInputError(`${target.relative} is a binary file; only text files can be edited.`);
  return text;
}

/** An edit's new text: into the editor's buffer when it offers one (ACP: the person sees it there), else atomically to disk. */
export async function writeEditedText(
  ctx: Pick<ToolContext, 'editorFiles' | 'workspace' | 'signal'>,
  target: WorkspacePath,
  text: string | Buffer,
  stats: Stats | undefined,
): Promise<void> {
  if (ctx.editorFiles?.writeText) await ctx.editorFiles.writeText(target.absolute, typeof text === 'string' ? text : text.toString('utf8'), ctx.signal);
  else await writeFileAtomic(target.absolute, text, stats, { root: ctx.workspace.root, tempDir: workspaceTempDir(ctx.workspace) });
}

/** The window of lines read_file shows, cut from the editor's text (what readLineWindow does on disk). */
export function textLineWindow(text: string, options: { offset: number; maxLines: number; maxChars: number; maxLineChars: number }): LineWindow {
  if (text.includes('\u0000')) return { binary: true, lines: [], totalLines: undefined, stoppedForSize: false };
  const all = text === '' ? [] : splitLines(text);
  const lines: string[] = [];
  let chars = 0;
  let stoppedForSize = false;
  for (let index = options.offset - 1; index < all.length && lines.length < options.maxLines; index++) {
    const line = cutLine(all[index], options.maxLineChars);
    if (lines.length > 0 && chars + line.length + 1 > options.maxChars) {
      stoppedForSize = true;
      break;
    }
    lines.push(line);
    chars += line.length + 1;
  }
  return { binary: false, lines, totalLines: all.length, stoppedForSize };
}
