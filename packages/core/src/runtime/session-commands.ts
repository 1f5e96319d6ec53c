import { contextTokens, contextUsage } from '../agent/context-usage.js';
import type { ChatSession } from '../agent/chat-session.js';
import type { UsageTotals } from '../agent/types.js';
import type { LoadedConfig } from '../config/index.js';
import type { SessionModel } from './session-model.js';

/**
 * A slash command that needs no screen: it acts on the session and answers with text, so every
 * front end offers it (chat draws some of them richer from the same functions).
 */
export interface SessionCommand {
  name: string;
  description: string;
  argumentHint?: string;
  /** It changes the conversation, so it waits until no turn is running. */
  idleOnly?: boolean;
  run(args: string, signal: AbortSignal): Promise<string>;
}

/** The commands `sessionCommands` makes, by name (`system/init` lists them before the plugins'). */
export const SESSION_COMMAND_NAMES = ['compact', 'clear', 'model', 'cost', 'context'] as const;

/** What the commands read and do: the AgentSession's members of these names. */
interface CommandSession extends Pick<SessionModel, 'switchModel' | 'listModels' | 'contextWindow'> {
  readonly session: ChatSession;
  readonly providerId: string;
  readonly config: LoadedConfig;
  compact(signal: AbortSignal, focus?: string): Promise<string>;
  newConversation(): Promise<unknown>;
}

/** `/compact`, `/clear`, `/model`, `/cost`, `/context`, read from the session when they run. */
export function sessionCommands(agent: CommandSession): readonly SessionCommand[] {
  return [
    {
      name: 'compact',
      description: 'summarise older turns to free context',
      argumentHint: '[focus]',
      idleOnly: true,
      run: (args, signal) => agent.compact(signal, args || undefined),
    },
    {
      name: 'clear',
      description: 'start a fresh conversation',
      idleOnly: true,
      async run() {
        await agent.newConversation();
        return `New conversation (session ${agent.session.id}).`;
      },
    },
    {
      name: 'model',
      description: 'show the model and the ones available, or switch to one by name',
      argumentHint: '[name]',
      idleOnly: true,
      async run(args, signal) {
        if (args) return agent.switchModel(args);
        const models = await agent.listModels(signal).catch(() => []);
        const available = models.length > 0 ? ` Available: ${models.map((model) => model.name).join(', ')}.` : '';
        return `Model: ${agent.session.model} (${agent.providerId}).${available} Switch with /model <name>.`;
      },
    },
    {
      name: 'cost',
      description: 'tokens and cost of this session',
      async run() {
        const lines = usageLines(agent.session.totalUsage);
        const window = agent.contextWindow();
        const used = contextTokens(agent.session);
        if (window && used) lines.push(`context: ${used.toLocaleString('en-US')} of ${window.toLocaleString('en-US')} tokens (${percent(used, window)})`);
        return lines.join('\n');
      },
    },
    {
      name: 'context',
      description: 'what fills the context window, by category (estimated tokens and share)',
      async run() {
        const window = agent.contextWindow();
        const compaction = agent.config.values.compaction;
        const usage = contextUsage(agent.session, { window, compactionThreshold: compaction.enabled ? compaction.threshold : undefined });
        const total = window
          ? `${usage.used.toLocaleString('en-US')} of ${window.toLocaleString('en-US')} tokens (${percent(usage.used, window)})`
          : `${usage.used.toLocaleString('en-US')} tokens (the provider does not say how large the window is)`;
        const rows = usage.categories.map(
          (category) => `${category.name}: ${category.tokens.toLocaleString('en-US')}${window ? ` (${percent(category.tokens, window)})` : ''}`,
        );
        const counted = usage.reported ? `; the provider counted ${usage.reported.toLocaleString('en-US')} in the newest request` : '';
        return [`Context window of ${agent.session.model}: ${total}`, ...rows, `Estimated as UTF-8 bytes / 4 per category${counted}.`].join('\n');
      },
    },
  ];
}

/** `/cost` as lines: tokens, prompt-cache use when there was any, and the cost. */
export function usageLines(usage: UsageTotals): string[] {
  const count = (tokens: number) => tokens.toLocaleString('en-US');
  const cost = !usage.costKnown ? 'unknown (no price for this model)' : usage.costUsd > 0 ? `$${usage.costUsd.toFixed(4)}` : '$0 (free or local model)';
  return [
    `tokens: ${count(usage.inputTokens)} in · ${count(usage.outputTokens)} out`,
    // Prompt caching: what was read back at the provider's discount, and written (Anthropic bills writes at 1.25x).
    ...(usage.cacheReadTokens || usage.cacheWriteTokens ? [`cache: ${count(usage.cacheReadTokens)} read · ${count(usage.cacheWriteTokens)} written`] : []),
    `cost: ${cost}`,
  ];
}

function percent(part: number, whole: number): string {
  return `${Math.round((part / whole) * 100)}%`;
}
