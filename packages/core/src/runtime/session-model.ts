import { modelLimits, resolveModelAlias, type ModelInfo } from '../llm/index.js';
import type { Compaction } from './compaction-hooks.js';
import type { Live } from './live.js';
import type { SettledAgent } from './settle-agent.js';

export interface SessionModelInput {
  agent: Pick<SettledAgent, 'client' | 'providerId'>;
  compaction: Pick<Compaction, 'contextWindowOf'>;
  live: Live;
}

export interface SessionModel {
  /** The provider's models (`/model`'s list). */
  listModels(signal?: AbortSignal): Promise<ModelInfo[]>;
  /** `/model <name>`: a Claude alias (`sonnet`) maps as in agent files; a name the provider does not list is refused. Returns a line to show. */
  switchModel(name: string): Promise<string>;
  /** The live model's context window: the provider's answer once looked up, else the built-in table's. */
  contextWindow(): number | undefined;
  /** Asks the provider for the live model's window (a request: the chat calls it once its prompt is drawn). */
  lookUpContextWindow(): void;
}

/** The live conversation's model: listing, switching, and its context window. */
export function createSessionModel(input: SessionModelInput): SessionModel {
  const { agent, live } = input;
  let looked: { model: string; window: number | undefined } | undefined;
  const model: SessionModel = {
    listModels: (signal) => agent.client.listModels(signal),
    async switchModel(name) {
      const wanted = resolveModelAlias(agent.providerId, name, live.session.model);
      const models = await agent.client.listModels().catch(() => []);
      if (models.length > 0 && !models.some((listed) => listed.name === wanted)) {
        return `Unknown model "${name}". Available: ${models.map((listed) => listed.name).join(', ')}`;
      }
      live.session.setModel(wanted);
      model.lookUpContextWindow();
      return `Model switched to ${wanted}.`;
    },
    contextWindow() {
      const current = live.session.model;
      return looked?.model === current && looked.window ? looked.window : modelLimits(agent.providerId, current).contextWindow;
    },
    lookUpContextWindow() {
      const current = live.session.model;
      void input.compaction.contextWindowOf(current, new AbortController().signal).then((window) => {
        looked = { model: current, window };
      });
    },
  };
  return model;
}
