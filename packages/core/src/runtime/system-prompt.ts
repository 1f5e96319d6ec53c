import { equipOwnSkills, withPreloadedSkills } from '../plugins/agent-skills.js';
import type { PluginCatalog, Profile } from '../plugins/index.js';
import { buildSystemPrompt, loadContextFiles, type ContextFile } from '../prompt/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { memoryStoreText } from '../memory/file-memory-store.js';
import type { MemoryStore } from '../memory/memory-store.js';
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
  const memory = input.options.memory;
  const contextFiles = await loadContextFiles({
    configDir: base.configDir,
    claudeHome: claudeHomeDir(),
    workspace: base.workspace,
    trusted: input.workspaceTrusted,
    onWarning: (text) => warnings.push(text),
    agentMemoryFile: !memory,
  });
  if (memory) contextFiles.push(...(await memoryFromStore(memory, warnings)));
  // Its own skills are its to load (its load_skill finds them first); an agent the conversation is
  // handed to has its own instead.
  const systemPromptFor: SystemPrompts['systemPromptFor'] = async (instructions, agent, tools, warn) => {
    const seen = equipOwnSkills(tools, catalog, agent.skills);
    const whole = await withPreloadedSkills(instructions, agent.preloadSkills, seen);
    return withAppendix(
      buildSystemPrompt({
        profile: { systemPrompt: whole },
        contextFiles,
        skills: tools.get('load_skill') ? seen.skills() : [],
        workspace: base.workspace,
        warn,
      }),
      input.options.appendSystemPrompt,
    );
  };
  return { contextFiles, systemPromptFor };
}

/** A program's memory store in place of `.beans/memory.md`; a store that fails to answer leaves it out, with a warning. */
async function memoryFromStore(memory: MemoryStore, warnings: string[]): Promise<ContextFile[]> {
  try {
    const content = memoryStoreText(await memory.list());
    return content ? [{ path: 'memory', label: 'Project memory', content }] : [];
  } catch (error) {
    warnings.push(`The memory store could not be read (${error instanceof Error ? error.message : String(error)}); this session starts without it.`);
    return [];
  }
}

function withAppendix(systemPrompt: string, appendix: string | undefined): string {
  return appendix?.trim() ? `${systemPrompt}\n\n${appendix.trim()}` : systemPrompt;
}
