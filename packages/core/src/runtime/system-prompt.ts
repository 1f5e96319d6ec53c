import { equipOwnSkills, withPreloadedSkills } from '../plugins/agent-skills.js';
import type { PluginCatalog, Profile } from '../plugins/index.js';
import { buildSystemPrompt, loadContextFiles, type ContextFile } from '../prompt/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { claudeHomeDir, type RuntimeBase } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SystemPromptsInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  catalog: PluginCatalog;
  /** Only a trusted workspace's context files may import the user's own files (`@~/.claude/...`). */
  workspaceTrusted: boolean;
  warnings: string[];
}

export interface SystemPrompts {
  /** CLAUDE.md, AGENTS.md and friends, read once for the session and its subagents. */
  contextFiles: ContextFile[];
  /**
   * The whole system prompt of the agent holding the conversation: its instructions, context files,
   * its skills (it gets its own load_skill when it names skills) and the appendix. May change `tools`.
   */
  systemPromptFor(instructions: string, agent: Pick<Profile, 'skills' | 'preloadSkills'>, tools: ToolRegistry, warn?: (text: string) => void): Promise<string>;
}

/** Part 9: the context files, and how any agent's system prompt is made from them. */
export async function loadSystemPrompts(input: SystemPromptsInput): Promise<SystemPrompts> {
  const { base, catalog, warnings } = input;
  const contextFiles = await loadContextFiles({ configDir: base.configDir, claudeHome: claudeHomeDir(), workspace: base.workspace, trusted: input.workspaceTrusted, onWarning: (text) => warnings.push(text) });
  // Its own skills are its to load (its load_skill finds them first); an agent the conversation is
  // handed to has its own instead.
  const systemPromptFor: SystemPrompts['systemPromptFor'] = async (instructions, agent, tools, warn) => {
    const seen = equipOwnSkills(tools, catalog, agent.skills);
    const whole = await withPreloadedSkills(instructions, agent.preloadSkills, seen);
    return withAppendix(buildSystemPrompt({ profile: { systemPrompt: whole }, contextFiles, skills: tools.get('load_skill') ? seen.skills() : [], workspace: base.workspace, warn }), input.options.appendSystemPrompt);
  };
  return { contextFiles, systemPromptFor };
}

function withAppendix(systemPrompt: string, appendix: string | undefined): string {
  return appendix?.trim() ? `${systemPrompt}\n\n${appendix.trim()}` : systemPrompt;
}
