import { modelLimits } from '../llm/index.js';
import type { Live } from './live.js';
import type { SessionHooks } from './session-hooks.js';
import type { SettledAgent } from './settle-agent.js';

export interface CompactionInput {
  agent: Pick<SettledAgent, 'client' | 'providerId'>;
  hooks: Pick<SessionHooks, 'runner'>;
  live: Live;
}

export interface Compaction {
  /** A model's context window: from the built-in table, else the provider's model list, looked up once per model. */
  contextWindowOf: (model: string, signal: AbortSignal) => Promise<number | undefined>;
  /** PreCompact hooks before a summary. */
  before(signal: AbortSignal, trigger: 'manual' | 'auto', focus?: string): Promise<void>;
  /** SessionStart hooks (source `compact`) after it: their context joins the next turn. */
  after(signal: AbortSignal): Promise<void>;
}

/** Part: what compaction needs around the summary, by hand (`/compact`) and automatic alike. */
export function createCompaction(input: CompactionInput): Compaction {
  const { agent, live } = input;
  const hooks = input.hooks.runner;
  // Looked up only when needed.
  const windows = new Map<string, Promise<number | undefined>>();
  return {
    contextWindowOf(name, signal) {
      let found = windows.get(name);
      if (!found) {
        const known = modelLimits(agent.providerId, name).contextWindow;
        found = known
          ? Promise.resolve(known)
          : agent.client.listModels(signal).then(
              (models) => models.find((entry) => entry.name === name)?.contextWindow,
              () => undefined,
            );
        windows.set(name, found);
      }
      return found;
    },
    async before(signal, trigger, focus) {
      if (hooks.has('PreCompact')) live.notices((await hooks.preCompact(trigger, focus, signal)).userMessages);
    },
    async after(signal) {
      if (!hooks.has('SessionStart')) return;
      const started = await hooks.sessionStart('compact', signal);
      live.notices(started.userMessages);
      live.startContext = started.context;
    },
  };
}
