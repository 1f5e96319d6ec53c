import * as z from 'zod';
import { ToolInputError } from '../errors.js';
import { resolveInWorkspace } from '../workspace/paths.js';
import { planEdit } from './edit-match.js';
import { readEditableText } from './editor-files.js';
import { fileEditSteps, type EditContext, type PreparedFileEdit } from './file-edit-steps.js';
import { assertUnchangedSinceRead, statOrUndefined } from './file-io.js';
import { missingFileMessage } from './missing-file.js';
import { cutLine, numberLines, plural, splitLines } from './text.js';
import { defineTool } from './tool.js';
import { lazily } from '../lazily.js';

const schema = lazily(() =>
  z.object({
    path: z.string(),
    old_string: z.string(),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  }),
);
type EditInput = z.infer<ReturnType<typeof schema>>;

interface PreparedEdit extends PreparedFileEdit {
  replacements: number;
  firstLine: number;
}

/** Lines of the edited file shown back to the model around a single replacement. */
const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 40;

export const editFileTool = defineTool({
  name: 'edit_file',
  kind: 'edit',
  description:
    'Replace text in a file. old_string must match exactly (indentation included, no line-number prefix) and only once, unless replace_all; ' +
    'add surrounding lines to make it unique. An empty old_string on a missing path creates the file.',
  schema,
  summarize: (input) => input.path,
  ruleSubject: (input) => input.path,
  ...fileEditSteps(prepareEdit, (edit, details, input) => {
    if (!edit.stats) return `Created ${edit.target.relative} (${plural(splitLines(edit.after).length, 'line')}).`;
    const content = `Edited ${edit.target.relative}: ${plural(edit.replacements, 'replacement')}, +${details.added} -${details.removed} lines.`;
    return edit.replacements === 1 ? `${content}\n${snippet(edit.after, edit.firstLine, input.new_string)}` : content;
  }),
});

async function prepareEdit(input: EditInput, ctx: EditContext): Promise<PreparedEdit> {
  const target = resolveInWorkspace(ctx.workspace, input.path);
  const stats = await statOrUndefined(target.absolute);
  if (!stats) {
    if (input.old_string !== '')
      throw new ToolInputError(`${await missingFileMessage(target)} To create a new file, call edit_file with an empty old_string (or use write_file).`);
    return { target, stats, before: '', after: input.new_string, replacements: 1, firstLine: 1 };
  }
  const before = await readEditableText(ctx.editorFiles, target, stats, ctx.workspace.root, ctx.signal);
  // An editor's buffer is read fresh just above and its saves move the disk's mtime on their own
  // schedule, so the mtime check (made for other writers of the disk) does not apply to it.
  if (!ctx.editorFiles?.readText) assertUnchangedSinceRead(ctx.state, target, stats);
  if (input.old_string === '') {
    if (before !== '') {
      throw new ToolInputError(
        `old_string is empty but ${target.relative} already exists and is not empty. Give the exact text to replace, or use write_file to replace the whole file.`,
      );
    }
    return { target, stats, before, after: input.new_string, replacements: 1, firstLine: 1 };
  }
  const plan = planEdit(before, input.old_string, input.new_string, input.replace_all ?? false, target.relative);
  if (!plan.ok) throw new ToolInputError(plan.message);
  return { target, stats, before, after: plan.content, replacements: plan.replacements, firstLine: plan.firstLine };
}

/** The edited lines with a little context, numbered as read_file numbers them, for the next edit. */
function snippet(after: string, firstLine: number, newString: string): string {
  const lines = splitLines(after);
  const changed = Math.max(1, splitLines(newString).length);
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, firstLine + changed - 1 + SNIPPET_CONTEXT, from + SNIPPET_MAX_LINES - 1);
  if (to < from) return '';
  return numberLines(
    lines.slice(from - 1, to).map((line) => cutLine(line, 500)),
    from,
  );
}
