import path from 'node:path';
import { loadOwnSkills } from './agent-skills.js';
import { agentSkillFields, handoffFields } from './entries.js';
import { asList, asText, parseFrontmatter } from './frontmatter.js';
import { agentToolNames } from './tool-names.js';
import type { PluginProblem, SkillEntry } from './types.js';

/** An agent file that belongs to no plugin: a profile (`--agent-profile`, `.beans/agent.md`) or a workflow's `./agents/x.md`. */
export interface AgentFile {
  name: string;
  description?: string;
  /** Beans tool names; undefined means every tool. */
  tools?: string[];
  model?: string;
  /** Its instructions: the body after the frontmatter. */
  body: string;
  /** The whole frontmatter, for keys only some readers use (`guardrails:`). */
  data: Record<string, unknown>;
  handoffs?: string[];
  match?: string[];
  ownSkills?: SkillEntry[];
  preloadSkills?: string[];
  /** What the lenient frontmatter reader had to recover from. */
  frontmatterProblem?: string;
  /** Problems with its `skills:` and its own skills. */
  skillProblems: PluginProblem[];
}

/**
 * Reads an agent file as a plugin agent is read: Claude Code tool names, `skills:`, and its own
 * skills beside it (`<file without .md>/skills/`). Nobody calls it from a conversation, so it
 * exposes none. `owner` names it in its skills' headings.
 */
export function readAgentFile(file: string, text: string, owner: string): AgentFile {
  const parsed = parseFrontmatter(text);
  const tools = asList(parsed.data.tools);
  const name = asText(parsed.data.name) ?? path.basename(file).replace(/\.md$/i, '');
  const skillProblems: PluginProblem[] = [];
  const { preloadSkills } = agentSkillFields(parsed.data, file, skillProblems);
  const { ownSkills } = loadOwnSkills({ name, path: file }, owner, skillProblems, path.dirname(file));
  return {
    name,
    description: asText(parsed.data.description),
    tools: tools && tools.length > 0 ? agentToolNames(tools) : undefined,
    model: asText(parsed.data.model),
    body: parsed.body.trim(),
    data: parsed.data,
    ...handoffFields(parsed.data),
    ...(ownSkills ? { ownSkills } : {}),
    ...(preloadSkills ? { preloadSkills } : {}),
    ...(parsed.problem ? { frontmatterProblem: parsed.problem } : {}),
    skillProblems,
  };
}
