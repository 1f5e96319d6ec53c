import type { Stats } from 'node:fs';
import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { resolveInWorkspace, type WorkspacePath, rootFor } from '../workspace/paths.js';
import { diffDetails } from './diff.js';
import { writeEditedText } from './editor-files.js';
import { appendFileConfined } from './file-append.js';
import { MAX_TEXT_FILE_BYTES, assertUnchangedSinceRead, readFileConfined, recordFileTime, statOrUndefined, workspaceTempDir } from './file-io.js';
import { checkedBeforeAsking, guarded } from './result.js';
import { formatBytes, looksBinary, plural, splitLines } from './text.js';
import { defineTool, type ToolContext, type ToolDetails } from './tool.js';
import { lazily } from '../lazily.js';

const schema = lazily(() =>
  z.object({
    path: z.string(),
    content: z.string(),
    append: z.boolean().optional(),
  }),
);
type WriteInput = z.infer<ReturnType<typeof schema>>;

interface PreparedWrite {
  target: WorkspacePath;
  stats: Stats | undefined;
  /** Undefined when the file is too large to show the change. */
  before?: Buffer;
  after: Buffer;
}

export const writeFileTool = defineTool({
  name: 'write_file',
  kind: 'edit',
  description:
    'Create a file or replace its whole content (append: true adds to its end instead); creates missing folders. ' + 'To change part of a file use edit_file.',
  schema,
  summarize: (input) => (input.append ? `${input.path} (append)` : input.path),
  ruleSubject: (input) => input.path,
  async check(input, ctx) {
    await checkedBeforeAsking(() => prepareWrite(input, ctx));
  },
  async preview(input, ctx) {
    try {
      return changeDetails(await prepareWrite(input, ctx));
    } catch {
      return undefined;
    }
  },
  async execute(input, ctx) {
    return guarded(ctx.signal, async () => {
      const write = await prepareWrite(input, ctx);
      ctx.signal.throwIfAborted();
      const lines = plural(splitLines(input.content).length, 'line');
      const tempDir = workspaceTempDir(ctx.workspace);
      if (input.append) {
        // Other processes and subagents may append to the same file at this moment: no read-modify-write.
        const appended = await appendFileConfined(write.target.absolute, Buffer.from(input.content, 'utf8'), {
          root: rootFor(ctx.workspace, write.target.absolute),
          lockDir: tempDir,
        });
        await recordFileTime(ctx.state, write.target.absolute);
        const content = appended.created
          ? `Created ${write.target.relative} (${lines}, ${formatBytes(appended.size)}).`
          : `Appended ${lines} to ${write.target.relative} (now ${formatBytes(appended.size)}).`;
        return { content, details: changeDetails(write) };
      }
      // Through the editor when it offers it (appends above stay on disk: they must not read-modify-write).
      await writeEditedText(ctx, write.target, write.after, write.stats);
      await recordFileTime(ctx.state, write.target.absolute);
      const size = formatBytes(write.after.length);
      const content = write.stats ? `Replaced ${write.target.relative} (${lines}, ${size}).` : `Created ${write.target.relative} (${lines}, ${size}).`;
      return { content, details: changeDetails(write) };
    });
  },
});

async function prepareWrite(
  input: WriteInput,
  ctx: Pick<ToolContext, 'workspace' | 'state' | 'editorFiles'> & { signal?: AbortSignal },
): Promise<PreparedWrite> {
  const target = resolveInWorkspace(ctx.workspace, input.path);
  if (target.relative === '.') throw new ToolInputError('write_file needs a file path, not the workspace root.');
  const stats = await statOrUndefined(target.absolute);
  const added = Buffer.from(input.content, 'utf8');
  if (!stats) return { target, stats, before: Buffer.alloc(0), after: added };
  if (stats.isDirectory()) throw new ToolInputError(`${target.relative} is a directory; give a file path inside it.`);
  if (!stats.isFile()) throw new ToolInputError(`${target.relative} is not a regular file; write_file only writes files.`);
  // Claude Code's rule: a whole-file replace of a file the model never read would clobber work it
  // has not seen (the user's, another tool's). An append keeps what is there.
  if (!input.append && !ctx.state.fileTimes.has(target.absolute)) {
    throw new ToolInputError(
      `${target.relative} already exists and you have not read it in this session: read it first with read_file, then write it (write_file replaces the whole file; edit_file changes a part).`,
    );
  }
  // Not for an editor's buffer: its saves move the disk's mtime on their own schedule (see edit_file).
  if (!input.append && !ctx.editorFiles?.readText) assertUnchangedSinceRead(ctx.state, target, stats);
  // For an append, what was there is read only to show the change; the append itself never rewrites it.
  if (input.append && stats.size > MAX_TEXT_FILE_BYTES) return { target, stats, after: added };
  // The editor's buffer is what the replace replaces (and what its diff shows).
  const before =
    !input.append && ctx.editorFiles?.readText && stats.size <= MAX_TEXT_FILE_BYTES
      ? Buffer.from(await ctx.editorFiles.readText(target.absolute, ctx.signal), 'utf8')
      : await readFileConfined(rootFor(ctx.workspace, target.absolute), target.absolute);
  return { target, stats, before, after: input.append ? Buffer.concat([before, added]) : added };
}

/** A diff for the UI, when both versions are text of a size worth diffing. */
function changeDetails(write: PreparedWrite): ToolDetails | undefined {
  if (!write.before || write.before.length > MAX_TEXT_FILE_BYTES || write.after.length > MAX_TEXT_FILE_BYTES) return undefined;
  if (looksBinary(write.before) || looksBinary(write.after)) return undefined;
  return diffDetails(write.target.relative, write.before.toString('utf8'), write.after.toString('utf8'));
}
