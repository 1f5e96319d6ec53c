import type { CheckpointRow, SessionRewindOptions } from '@beans/core';
import { heading, type Builtin, type CommandContext } from './command-kit.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

type Choice = 'both' | 'code' | 'conversation';
const CHOICES: { value: Choice; label: string }[] = [
  { value: 'both', label: 'Restore code and conversation' },
  { value: 'code', label: 'Restore code only' },
  { value: 'conversation', label: 'Restore conversation only' },
];

/**
 * `/rewind` (and Esc twice on an empty input): pick a user message, then code and conversation, code
 * only or conversation only; the diff summary is shown and confirmed before anything changes. The
 * conversation rewind puts the message back in the input box, as Claude Code does.
 */
export const REWIND_BUILTINS: Record<string, Builtin> = {
  rewind: {
    description: 'put the code and/or the conversation back to an earlier message',
    idleOnly: true,
    async run(_args, context) {
      const rows = (await context.host.checkpoints.list()).filter((row) => row.kind === 'message');
      if (rows.length === 0) return context.note('info', 'Nothing to rewind to yet: no message has been sent in this conversation.');
      context.openPicker({
        title: 'Rewind to before which message?',
        selected: rows.length - 1,
        action: 'choose',
        items: rows.map((row) => ({ value: row.id, label: firstLine(row.text), detail: describeChanges(row) })),
        onSelect: (id) =>
          chooseWhat(
            context,
            rows.find((row) => row.id === id)!,
          ),
      });
    },
  },
};

function chooseWhat(context: CommandContext, row: CheckpointRow): void {
  const codeOff = !context.host.checkpoints.enabled;
  context.openPicker({
    title: `Rewind to before "${firstLine(row.text)}"`,
    selected: codeOff ? 2 : 0,
    action: 'choose',
    items: CHOICES.filter((choice) => !codeOff || choice.value === 'conversation').map((choice) => ({ value: choice.value, label: choice.label })),
    onSelect: (value) => preview(context, row, value as Choice),
  });
}

async function preview(context: CommandContext, row: CheckpointRow, choice: Choice): Promise<void> {
  const options = optionsOf(choice);
  const planned = await context.host.checkpoints.rewind(row.id, { ...options, dryRun: true });
  const out: StyledLine[] = [heading(`Rewind to before "${firstLine(row.text)}"`)];
  const code = planned.code;
  if (code && !code.canRewind) return context.note('error', code.error ?? 'The code cannot go back there.');
  if (code) {
    if (code.files.length === 0) out.push([span('  The code is already as it was then.', S.dim)]);
    for (const file of code.files) {
      const notes = [
        file.changedByHand ? 'changed by hand since: will be overwritten' : '',
        file.restorable ? '' : 'not restorable (over checkpoints.maxFileBytes)',
      ]
        .filter(Boolean)
        .join('; ');
      out.push(
        truncateLine(
          [
            span(`  ${file.action.padEnd(7)} `),
            span(file.path, { color: 'cyan' }),
            span(` +${file.insertions} -${file.deletions}`, S.dim),
            ...(notes ? [span(`  ${notes}`, { color: 'yellow' })] : []),
          ],
          context.width,
        ),
      );
    }
  }
  if (planned.conversation)
    out.push([
      span(`  The conversation goes back to before this message (${planned.conversation.removedMessages} messages); it returns to the input box.`, S.dim),
    ]);
  context.print(out);
  const force = (code?.changedByHand.length ?? 0) > 0;
  context.openPicker({
    title: 'Rewind now?',
    selected: 0,
    action: 'choose',
    items: [
      { value: 'yes', label: force ? 'Yes, and overwrite the files changed by hand' : 'Yes, rewind' },
      { value: 'no', label: 'No, keep everything' },
    ],
    onSelect: async (answer) => {
      if (answer !== 'yes') return context.note('info', 'Nothing was rewound.');
      const done = await context.host.checkpoints.rewind(row.id, { ...options, force });
      if (done.code && !done.code.canRewind) return context.note('error', done.code.error ?? 'The code could not go back there.');
      if (done.conversation) {
        context.reloadConversation();
        context.setInput(done.conversation.text);
      }
      const failed = done.code?.failed ?? [];
      for (const failure of failed) context.note('error', `Could not restore ${failure.path}: ${failure.reason}`);
      const parts = [
        done.code ? `the code (${done.code.files.length} file${done.code.files.length === 1 ? '' : 's'})` : '',
        done.conversation ? 'the conversation' : '',
      ].filter(Boolean);
      context.note(
        'info',
        `Rewound ${parts.join(' and ')} to before "${firstLine(row.text)}".${done.code?.undoId ? ' /rewind again lists the state before this rewind too (beans rewind ' + done.code.undoId + ').' : ''}`,
      );
    },
  });
}

function optionsOf(choice: Choice): SessionRewindOptions {
  if (choice === 'code') return { code: true };
  if (choice === 'conversation') return { conversation: true, code: false };
  return { code: true, conversation: true };
}

function describeChanges(row: CheckpointRow): string {
  if (row.files.length === 0) return 'no file changes';
  return `${row.files.length} file${row.files.length === 1 ? '' : 's'} +${row.insertions} -${row.deletions}`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
