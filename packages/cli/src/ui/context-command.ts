import { contextUsage } from '@beans/core';
import { heading, type Builtin } from './command-kit.js';
import { formatTokens } from './status-line.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

const BAR_WIDTH = 20;

/** `/context` (issue #44): the model's window by category, with tokens and each one's share. */
export const CONTEXT_BUILTINS: Record<string, Builtin> = {
  context: {
    description: 'what fills the context window, by category (estimated tokens and share)',
    async run(_args, { host, session, width, print }) {
      const settings = new Map(host.configEntries().map((entry) => [entry.key, entry.value]));
      const threshold = settings.get('compaction.enabled') === false ? undefined : Number(settings.get('compaction.threshold') ?? 0.8);
      const window = host.contextWindow();
      const usage = contextUsage(session, { window, compactionThreshold: threshold });
      const nameWidth = Math.max(...usage.categories.map((category) => category.name.length)) + 2;
      const rows: StyledLine[] = usage.categories.map((category) => {
        const share = window ? category.tokens / window : undefined;
        const filled = share === undefined ? 0 : Math.min(BAR_WIDTH, Math.round(share * BAR_WIDTH));
        const bar = share === undefined ? [] : [span('█'.repeat(filled), { color: 'cyan' }), span('░'.repeat(BAR_WIDTH - filled), S.dim), span(' ')];
        const percent = share === undefined ? '' : ` ${(share * 100).toFixed(1).padStart(5)}%`;
        return truncateLine(
          [span('  '), ...bar, span(category.name.padEnd(nameWidth)), span(formatTokens(category.tokens).padStart(7)), span(percent, S.dim)],
          width,
        );
      });
      const total = window
        ? `${session.model}: ${formatTokens(usage.used)} of ${formatTokens(window)} tokens (${Math.round((usage.used / window) * 100)}%)`
        : `${session.model}: ${formatTokens(usage.used)} tokens (the provider does not say how large the window is)`;
      const notes: StyledLine[] = [
        [
          span('Estimated as UTF-8 bytes / 4 per category', S.dim),
          span(usage.reported ? `; the provider counted ${formatTokens(usage.reported)} tokens in the newest request.` : '.', S.dim),
        ],
      ];
      if (threshold === undefined && window) notes.push([span('Auto-compaction is off (compaction.enabled: false): no reserve.', S.dim)]);
      print([heading(`Context window · ${total}`), ...rows, ...notes]);
    },
  },
};
