import type { SessionTools } from './assemble-tools.js';
import type { ToolDeferral } from './defer-tools.js';
import type { SettledAgent } from './settle-agent.js';
import type { SystemPrompt, SystemPrompts } from './system-prompt.js';

export interface FirstSystemPromptInput {
  prompts: Pick<SystemPrompts, 'systemPromptFor'>;
  agent: Pick<SettledAgent, 'profile'>;
  tools: Pick<SessionTools, 'tools'>;
  /** The deferred MCP tools' names follow it. */
  deferral: Pick<ToolDeferral, 'withListing'>;
}

/** Part: the first agent's system prompt, with the names of the tools it loads on demand. */
export async function firstSystemPrompt(input: FirstSystemPromptInput): Promise<SystemPrompt> {
  const { profile } = input.agent;
  const prompt = await input.prompts.systemPromptFor(profile.systemPrompt, profile, input.tools.tools);
  return { ...prompt, text: input.deferral.withListing(prompt.text) };
}
