import type { Stats } from 'node:fs';
import type { WorkspacePath } from '../workspace/paths.js';
import { diffDetails, type DiffDetails } from './diff.js';
import { writeEditedText } from './editor-files.js';
import { recordFileTime } from './file-io.js';
import { checkedBeforeAsking, guarded } from './result.js';
import type { Tool, ToolContext } from './tool.js';

/** A change to one text file, worked out before anything is written. */
export interface PreparedFileEdit {
  target: WorkspacePath;
  /** The file's stats when it was read (the write keeps its mode); undefined for a file the edit creates. */
  stats: Stats | undefined;
  before: string;
  after: string;
}

/** What preparing an edit may read: the workspace, the session's read times and the editor's buffers. */
export type EditContext = Pick<ToolContext, 'workspace' | 'state' | 'editorFiles'> & { signal?: AbortSignal };

/**
 * The check, preview and execute of a tool that changes one text file (edit_file, notebook_edit).
 * `prepare` works the change out, throwing a ToolInputError the model can act on; the check runs it
 * before the person is asked, the preview shows its diff, and execute prepares it again (the file may
 * have changed while the person decided), writes it (to the editor's buffer when there is one) and
 * answers with `report`.
 */
export function fileEditSteps<Input, Edit extends PreparedFileEdit>(
  prepare: (input: Input, ctx: EditContext) => Promise<Edit>,
  report: (edit: Edit, details: DiffDetails, input: Input) => string,
): Pick<Tool<Input>, 'check' | 'preview' | 'execute'> {
  return {
    async check(input, ctx) {
      await checkedBeforeAsking(() => prepare(input, ctx));
    },
    async preview(input, ctx) {
      try {
        const edit = await prepare(input, ctx);
        return diffDetails(edit.target.relative, edit.before, edit.after);
      } catch {
        // The call will fail when it runs and explain why; a prompt just shows no diff.
        return undefined;
      }
    },
    async execute(input, ctx) {
      return guarded(ctx.signal, async () => {
        const edit = await prepare(input, ctx);
        ctx.signal.throwIfAborted();
        await writeEditedText(ctx, edit.target, edit.after, edit.stats);
        await recordFileTime(ctx.state, edit.target.absolute);
        const details = diffDetails(edit.target.relative, edit.before, edit.after);
        return { content: report(edit, details, input), details };
      });
    },
  };
}
