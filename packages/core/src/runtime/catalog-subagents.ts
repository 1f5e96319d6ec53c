import type { PluginCatalog } from '../plugins/index.js';
import { parseInlineAgents, subagentList, type SubagentDefinition } from '../subagents/index.js';
import { loadPluginCatalog, type PluginCatalogInput } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface CatalogAndSubagentsInput extends PluginCatalogInput, Pick<AgentSessionOptions, 'agents'> {}

export interface CatalogAndSubagents {
  /** Every plugin's commands, skills, agents and hooks, in precedence order. */
  catalog: PluginCatalog;
  /** The agents the `task` tool offers: general-purpose, inline (`--agents`), then plugin agents. */
  subagents: readonly SubagentDefinition[];
}

/** Part: the plugins and the subagents they (and `--agents`) bring. */
export async function loadCatalogAndSubagents(input: CatalogAndSubagentsInput): Promise<CatalogAndSubagents> {
  const catalog = await loadPluginCatalog(input);
  // Checked before anything else is built, so a bad --agents value is a usage error up front.
  const subagents = subagentList(catalog, input.agents === undefined ? {} : parseInlineAgents(input.agents));
  return { catalog, subagents };
}
