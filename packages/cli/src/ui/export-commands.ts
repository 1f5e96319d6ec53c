import type { Builtin, CommandContext } from './command-kit.js';

/** `/export [file]` and `/copy` (issue #44): the conversation as Markdown, the last answer to the clipboard. */
export const EXPORT_BUILTINS: Record<string, Builtin> = {
  export: {
    description: 'write the conversation as Markdown to a file (or copy it to the clipboard)',
    argumentHint: '[file]',
    async run(args, context) {
      const [{ conversationMarkdown }, { stripTerminalControls }] = await Promise.all([
        import('./conversation-markdown.js'),
        import('../output/terminal-safe.js'),
      ]);
      const { host, session } = context;
      // Safe to `cat`: the model's escape sequences (clipboard, title, clear screen) are left out, as on screen.
      const markdown = stripTerminalControls(
        conversationMarkdown(session.messages, {
          sessionId: session.id,
          model: session.model,
          workspace: host.header.workspace,
          exportedAt: new Date(),
        }),
      );
      const file = args.trim();
      if (file) return writeExport(context, file, markdown);
      // The whole id (the one `beans --resume` takes): cut at 8 characters it was `beans-conversation-2026-11-.md`.
      const fallback = `beans-conversation-${session.id}.md`;
      context.openPicker({
        title: 'Export the conversation as Markdown to… (Esc cancels)',
        selected: 0,
        action: 'export',
        items: [
          { label: 'the clipboard (OSC 52)', value: 'clipboard' },
          { label: `a file: ${fallback}`, value: 'file' },
        ],
        onSelect: (value) => (value === 'clipboard' ? copyToClipboard(context, markdown, 'the conversation') : writeExport(context, fallback, markdown)),
      });
    },
  },
  copy: {
    description: 'copy the last answer to the clipboard (OSC 52)',
    async run(_args, context) {
      const [{ lastAnswer }, { stripTerminalControls }] = await Promise.all([import('./conversation-markdown.js'), import('../output/terminal-safe.js')]);
      const last = lastAnswer(context.session.messages);
      const answer = last === undefined ? undefined : stripTerminalControls(last);
      if (!answer) return context.note('info', 'There is no answer to copy yet.');
      await copyToClipboard(context, answer, 'the last answer');
    },
  },
};

async function writeExport(context: CommandContext, file: string, markdown: string): Promise<void> {
  const [{ writeFile }, path] = await Promise.all([import('node:fs/promises'), import('node:path')]);
  const target = path.resolve(context.host.header.workspace, file);
  try {
    await writeFile(target, markdown);
  } catch (error) {
    return context.note('error', `Could not write ${target}: ${error instanceof Error ? error.message : String(error)}`);
  }
  context.note('info', `Exported the conversation to ${target} (${markdown.split('\n').length} lines of Markdown).`);
}

/**
 * Written to the terminal as OSC 52; whether it reached the clipboard only the terminal knows (tmux
 * needs `set-clipboard on`, some terminals ask or refuse), so the note says how to get a file instead.
 */
async function copyToClipboard(context: CommandContext, text: string, what: string): Promise<void> {
  const { osc52 } = await import('./conversation-markdown.js');
  if (!context.writeTerminal(osc52(text)))
    return context.note('error', `Cannot copy ${what}: the chat is not writing to a terminal. Use /export <file> instead.`);
  context.note(
    'info',
    `Copied ${what} (${text.length} characters) to the clipboard with OSC 52. If your terminal does not take OSC 52, nothing was copied: use /export <file>.`,
  );
}
