import type { Builtin } from './command-kit.js';
import { renderMarkdown } from './markdown.js';
import { S, span } from './styled.js';

/**
 * `/btw <question>` (Claude Code's side question): answered from the conversation with no tools, shown
 * here and kept out of the conversation; it may be asked while the agent works (Esc cancels it first,
 * a second Esc interrupts the turn).
 */
export const BTW_BUILTINS: Record<string, Builtin> = {
  btw: {
    description: 'ask a side question about the conversation; neither it nor the answer is kept (also while the agent works)',
    argumentHint: '<question>',
    async run(args, { session, width, print, note, runTask }) {
      const question = args.trim();
      if (!question) return note('info', 'Ask with /btw <question>: answered from the conversation, without tools, and not kept in it.');
      await runTask('Answering aside', async (signal) => {
        const outcome = await session.askAside(question, signal);
        if ('error' in outcome) return note('error', `/btw: ${outcome.error}.`);
        print([
          [span('btw · ', S.bold), span(question, S.dim)],
          ...renderMarkdown(outcome.answer, width),
          [span('(a side answer: not kept in the conversation)', S.dim)],
        ]);
      });
    },
  },
};
