import { formatConfigSource, type LoadedConfig } from '../config/index.js';
import { UsageError } from '../errors.js';
import { compileGuardrails, parseGuardrails, type GuardrailSource, type Guardrails } from '../guardrails/index.js';
import { costUsd, resolveModelAlias, type LLMClient } from '../llm/index.js';
import { resolveProfile, type PluginCatalog, type Profile } from '../plugins/index.js';
import type { Workspace } from '../workspace/workspace.js';
import { clientFor, providerIdOf } from './base.js';
import { settleModel } from './fallback-provider.js';
import { generateProfile } from './profile-writer.js';
import type { AgentSessionOptions } from './session-options.js';

/** Who answers: the provider's client, the agent profile, the guardrails it answers under and the model. */
export interface SettledAgent {
  providerId: string;
  client: LLMClient;
  profile: Profile;
  /** From settings, and from the agent's frontmatter (or the caller's own). */
  guardrails: Guardrails;
  model: string;
  /** Why the client picked the model it did, when it picked one. */
  modelNote?: string;
}

export interface SettleAgentInput {
  /** The settings (provider, model, keys' endpoints, guardrails) and where each came from. */
  config: LoadedConfig;
  env: NodeJS.ProcessEnv;
  workspace: Workspace;
  /** Where `--agent-profile NAME` looks for a plugin agent. */
  catalog: PluginCatalog;
  options: Pick<
    AgentSessionOptions,
    | 'client'
    | 'interactive'
    | 'model'
    | 'systemPrompt'
    | 'agentProfile'
    | 'agentDescription'
    | 'guardrails'
    | 'inputGuardrails'
    | 'outputGuardrails'
    | 'context'
  >;
}

/** Part: the provider's client, the profile, its guardrails, then the model (the network is touched last). */
export async function settleAgent(input: SettleAgentInput): Promise<SettledAgent> {
  const { catalog, options } = input;
  const configured = { config: input.config, env: input.env };
  const values = input.config.values;
  let providerId = options.client?.provider ?? providerIdOf(configured);
  let client = options.client ?? (await clientFor(configured, providerId, options.interactive === true));

  // The profile comes before the model, so a mistyped --agent-profile is reported without touching the network.
  // Settling the model may replace an unreachable default Ollama with the local provider.
  let resolving: Promise<{ model: string; note?: string }> | undefined;
  const modelOnce = () =>
    (resolving ??= settleModel(configured, providerId, client, options.client !== undefined).then((settled) => {
      ({ providerId, client } = settled);
      return settled.resolved;
    }));
  const profile: Profile =
    options.systemPrompt !== undefined
      ? { name: 'custom', source: 'system-prompt' as const, systemPrompt: options.systemPrompt }
      : await resolveProfile({
          agentProfile: options.agentProfile,
          agentDescription: options.agentDescription,
          workspaceRoot: input.workspace.root,
          cwd: input.workspace.cwd,
          catalog,
          generate: async (description) => generateProfile(client, (await modelOnce()).model, description),
        });
  const profileWhere = profile.sourcePath ?? profile.name;
  const agentGuardrails: GuardrailSource = options.guardrails
    ? { rules: options.guardrails, where: 'the guardrails option' }
    : { rules: profile.guardrails !== undefined ? parseGuardrails(profile.guardrails, profileWhere) : undefined, where: profileWhere };
  const rules = await compileGuardrails(...settingsGuardrails(input.config), agentGuardrails);
  const { inputGuardrails = [], outputGuardrails = [] } = options;
  const guardrails: Guardrails =
    inputGuardrails.length + outputGuardrails.length > 0
      ? { ...rules, functions: { input: inputGuardrails, output: outputGuardrails, context: options.context } }
      : rules;
  const resolved: { model: string; note?: string } = options.model ? { model: options.model } : await modelOnce();
  // An agent's `model:` (an alias like sonnet, or a concrete id) applies unless a model was named.
  const model = profile.model && !options.model && !values.model ? resolveModelAlias(providerId, profile.model, resolved.model) : resolved.model;
  // A budget Beans cannot measure would let the run go on unbounded: refuse it up front.
  if (values.maxBudgetUsd !== undefined && costUsd(providerId, model, { inputTokens: 0, outputTokens: 0 }) === undefined) {
    throw new UsageError(
      `The price of ${providerId} model "${model}" is unknown, so --max-budget-usd cannot be enforced. Use --max-turns to bound the run, or pick a model with a known price.`,
    );
  }
  return { providerId, client, profile, guardrails, model, ...(resolved.note ? { modelNote: resolved.note } : {}) };
}

/** The settings' guardrail lists, each with the file (or flag) it came from, for errors. */
function settingsGuardrails(config: LoadedConfig): GuardrailSource[] {
  return (['input', 'output'] as const).map((list) => {
    const entry = config.entries.find((candidate) => candidate.key === `guardrails.${list}`);
    return { rules: { [list]: config.values.guardrails?.[list] }, where: entry ? formatConfigSource(entry.source) : 'settings' };
  });
}
