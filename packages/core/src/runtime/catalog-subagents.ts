import type { PluginCatalog } from '../plugins/index.js';
import { parseInlineAgents, subagentList, type SubagentDefinition } from '../subagents/index.js';
import { loadCatalog, type RuntimeBase } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface CatalogAndSubagents {
  /** Every plugin's commands, skills, agents and hooks, in precedence order. */
  catalog: PluginCatalog;
  /** The agents the `task` tool offers: general-purpose, inline (`--agents`), then plugin agents. */
  subagents: readonly SubagentDefinition[];
}

/** Part 3: the plugins and the subagents they (and `--agents`) bring. */
export async function loadCatalogAndSubagents(base: RuntimeBase, options: AgentSessionOptions): Promise<CatalogAndSubagents> {
  const catalog = await loadCatalog(base, options.builtinPluginsDir);
  // Checked before anything else is built, so a bad --agents value is a usage error up front.
  const subagents = subagentList(catalog, options.agents === undefined ? {} : parseInlineAgents(options.agents));
  return { catalog, subagents };
}
