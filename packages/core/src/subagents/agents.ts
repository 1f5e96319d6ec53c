import * as z from 'zod';
import { UsageError } from '../errors.js';
import { agentToolNames } from '../plugins/tool-names.js';
import type { PluginCatalog, SkillEntry } from '../plugins/types.js';
import { lazily } from '../lazily.js';
import { PARSE_ONCE } from '../parse-once.js';

/** An agent the `task` tool can delegate to: a built-in, a plugin agent, or one given inline. */
export interface SubagentDefinition {
  name: string;
  /** Also answers to this name (`plugin:name` for plugin agents). */
  qualifiedName?: string;
  description: string;
  /** Beans tool names; undefined means every tool the parent has (except `task`). */
  tools?: string[];
  /** Raw `model:`: `inherit`, an alias such as `sonnet`, or a model id; undefined means the parent's. */
  model?: string;
  /** `handoffs:`: the only agents it may pass the conversation to; undefined means any. */
  handoffs?: string[];
  /** `match:`: keywords and `/regex/` strings that route a user message to it. */
  match?: string[];
  /** Its own skills (`agents/<name>/skills/`), listed and loadable only while it runs. */
  skills?: SkillEntry[];
  /** `skills: [a, b]`: skills whose whole bodies start its system prompt. */
  preloadSkills?: string[];
  /** The agent's instructions (a plugin agent's body is read when it is first used). */
  prompt(): Promise<string>;
}

export const GENERAL_PURPOSE_PROMPT = [
  'You are a general-purpose agent working for another agent on one focused job.',
  'Use the tools you have to research the question or carry out the task completely, then answer with',
  'a concise report of what you found or did: the facts, file paths and line numbers that matter.',
  'Your answer is read by the agent that called you, not by a person.',
].join(' ');

const generalPurpose: SubagentDefinition = {
  name: 'general-purpose',
  description: 'Researches questions, searches code and runs multi-step tasks.',
  prompt: async () => GENERAL_PURPOSE_PROMPT,
};

// Claude Code's `--agents` / `options.agents` shape.
const inlineAgentsSchema = lazily(() =>
  z.record(
    z.string().regex(/^[\w.:-]+$/, 'an agent name is letters, digits, ".", ":", "_" or "-"'),
    z.strictObject({
      description: z.string().trim().min(1),
      prompt: z.string().trim().min(1),
      tools: z.array(z.string()).optional(),
      model: z.string().optional(),
    }),
  ),
);

export type InlineAgents = z.infer<ReturnType<typeof inlineAgentsSchema>>;

/** `--agents '<json>'` or `query({ options: { agents } })`, checked; a bad value is a usage error. */
export function parseInlineAgents(value: unknown): InlineAgents {
  let raw = value;
  if (typeof value === 'string') {
    try {
      raw = JSON.parse(value);
    } catch {
      throw new UsageError('--agents takes JSON such as {"reviewer": {"description": "...", "prompt": "..."}}.');
    }
  }
  const parsed = inlineAgentsSchema().safeParse(raw, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new UsageError(
      `The agents definition is not valid${where}: ${issue?.message ?? 'unknown problem'}. Each agent needs "description" and "prompt"; "tools" and "model" are optional.`,
    );
  }
  return parsed.data;
}

/**
 * The agents a session can delegate to, in the order the model sees them: `general-purpose`, the
 * inline agents, then the plugin agents. An inline agent shadows a plugin agent of the same plain
 * name (it stays reachable as `plugin:name`), as programmatic agents win in Claude Code.
 */
export function subagentList(catalog: Pick<PluginCatalog, 'agents'>, inline: InlineAgents = {}): SubagentDefinition[] {
  const list: SubagentDefinition[] = [generalPurpose];
  for (const [name, agent] of Object.entries(inline)) {
    if (name === generalPurpose.name) list.splice(0, 1);
    list.push({
      name,
      description: agent.description,
      tools: agent.tools ? agentToolNames(agent.tools) : undefined,
      model: agent.model,
      prompt: async () => agent.prompt,
    });
  }
  const taken = new Set(list.map((agent) => agent.name));
  for (const entry of catalog.agents()) {
    list.push({
      name: taken.has(entry.name) ? entry.qualifiedName : entry.name,
      qualifiedName: entry.qualifiedName,
      description: entry.description,
      tools: entry.tools,
      model: entry.model,
      ...(entry.handoffs ? { handoffs: entry.handoffs } : {}),
      ...(entry.match ? { match: entry.match } : {}),
      ...(entry.ownSkills ? { skills: entry.ownSkills } : {}),
      ...(entry.preloadSkills ? { preloadSkills: entry.preloadSkills } : {}),
      prompt: () => entry.loadBody(),
    });
  }
  return list;
}

export function findSubagent(agents: readonly SubagentDefinition[], name: string): SubagentDefinition | undefined {
  const wanted = name.trim();
  return agents.find((agent) => agent.name === wanted) ?? agents.find((agent) => agent.qualifiedName === wanted);
}
