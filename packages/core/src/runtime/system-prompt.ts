import { equipOwnSkills, withPreloadedSkills } from '../plugins/agent-skills.js';
import type { PluginCatalog, Profile } from '../plugins/index.js';
import { buildSystemPrompt, loadContextFiles, type ContextFile } from '../prompt/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { memoryStoreText } from '../memory/file-memory-store.js';
import type { MemoryStore } from '../memory/memory-store.js';
import type { Workspace } from '../workspace/workspace.js';
import { claudeHomeDir } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SystemPromptsInput {
  workspace: Workspace;
  /** The user's config folder: its context files (`AGENTS.md`, `BEANS.md`). */
  configDir: string;
  /** The skills an agent is equipped with. */
  catalog: PluginCatalog;
  /** Only a trusted workspace's context files may import the user's own files (`@~/.claude/...`). */
  trusted: boolean;
  options: Pick<AgentSessionOptions, 'memory' | 'appendSystemPrompt'>;
}

/** An agent's whole system prompt, and what making it found to warn about. */
export interface SystemPrompt {
  text: string;
  warnings: string[];
}

export interface SystemPrompts {
  /** CLAUDE.md, AGENTS.md and friends, read once for the session and its subagents. */
  contextFiles: ContextFile[];
  /**
   * The whole system prompt of the agent holding the conversation: its instructions, context files,
   * its skills (it gets its own load_skill when it names skills) and the appendix. May change `tools`.
   */
  systemPromptFor(instructions: string, agent: Pick<Profile, 'skills' | 'preloadSkills'>, tools: ToolRegistry): Promise<SystemPrompt>;
  /** Context files that could not be read or imported, and a memory store that did not answer. */
  warnings: string[];
}

/** Part: the context files, and how any agent's system prompt is made from them. */
export async function loadSystemPrompts(input: SystemPromptsInput): Promise<SystemPrompts> {
  const { workspace, catalog } = input;
  const { memory, appendSystemPrompt } = input.options;
  const warnings: string[] = [];
  const contextFiles = await loadContextFiles({
    configDir: input.configDir,
    claudeHome: claudeHomeDir(),
    workspace,
    trusted: input.trusted,
    onWarning: (text) => warnings.push(text),
    agentMemoryFile: !memory,
  });
  if (memory) contextFiles.push(...(await memoryFromStore(memory, warnings)));
  // Its own skills are its to load (its load_skill finds them first); an agent the conversation is
  // handed to has its own instead.
  const systemPromptFor: SystemPrompts['systemPromptFor'] = async (instructions, agent, tools) => {
    const seen = equipOwnSkills(tools, catalog, agent.skills);
    const whole = await withPreloadedSkills(instructions, agent.preloadSkills, seen);
    const found: string[] = [];
    const text = buildSystemPrompt({
      profile: { systemPrompt: whole },
      contextFiles,
      skills: tools.get('load_skill') ? seen.skills() : [],
      workspace,
      warn: (line) => found.push(line),
    });
    return { text: withAppendix(text, appendSystemPrompt), warnings: found };
  };
  return { contextFiles, systemPromptFor, warnings };
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
