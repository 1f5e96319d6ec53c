import type { ChatSession } from './chat-session.js';
import { modelView } from './convert.js';
import type { AgentMessage } from './types.js';

/** One row of `/context`. */
export interface ContextCategory {
  name: string;
  tokens: number;
}

export interface ContextUsage {
  categories: ContextCategory[];
  /** Everything the next request would carry, by the estimate. */
  used: number;
  window: number | undefined;
  /** Tokens the provider reported for the newest request since the last compaction, when there was one. */
  reported: number;
}

/**
 * Tokens are estimated as UTF-8 bytes / 4 (close for English and code with the common tokenizers;
 * providers report only a whole request's count, never its parts).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/**
 * Tokens the conversation occupies now: the newest request's prompt (cached parts included) plus its
 * answer, as the provider counted them; 0 when no request was made since the conversation began or
 * was last compacted (a count from before the summary says nothing about the request Beans sends now).
 */
export function contextTokens(session: Pick<ChatSession, 'messages'>): number {
  for (let index = session.messages.length - 1; index >= 0; index--) {
    const message = session.messages[index];
    if (message.role === 'note' && message.kind === 'compaction') return 0;
    if (message.role !== 'assistant' || !message.usage) continue;
    // With prompt caching most of the prompt is reported as cache reads and writes, not input.
    const { inputTokens, outputTokens, cacheReadTokens = 0, cacheWriteTokens = 0 } = message.usage;
    const prompt = inputTokens + cacheReadTokens + cacheWriteTokens;
    if (prompt > 0) return prompt + outputTokens;
  }
  return 0;
}

// The headings buildSystemPrompt puts before the context files and the skill list.
const CONTEXT_FILES_HEADING = '\n\n# Project instructions\n';
const SKILLS_HEADING = '\n\n# Skills\n';

/** The system prompt cut into the agent's own instructions, the context files and the skill list. */
function splitSystemPrompt(prompt: string): { instructions: string; contextFiles: string; skills: string } {
  const skillsAt = prompt.lastIndexOf(SKILLS_HEADING);
  const contextAt = prompt.indexOf(CONTEXT_FILES_HEADING);
  const skillsStart = skillsAt === -1 ? prompt.length : skillsAt;
  const contextStart = contextAt === -1 || contextAt > skillsStart ? skillsStart : contextAt;
  return {
    instructions: prompt.slice(0, contextStart) + (skillsAt === -1 ? '' : prompt.slice(skillsEnd(prompt, skillsAt))),
    contextFiles: prompt.slice(contextStart, skillsStart),
    skills: skillsAt === -1 ? '' : prompt.slice(skillsAt, skillsEnd(prompt, skillsAt)),
  };
}

/** The skill list runs to the next top-level heading (something appended after it), or the end. */
function skillsEnd(prompt: string, skillsAt: number): number {
  const next = prompt.indexOf('\n\n# ', skillsAt + SKILLS_HEADING.length);
  return next === -1 ? prompt.length : next;
}

function messageText(message: AgentMessage): string {
  switch (message.role) {
    case 'user':
      return message.content;
    case 'assistant':
      return message.content + message.toolCalls.map((call) => call.name + JSON.stringify(call.arguments)).join('');
    case 'tool':
      return typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    case 'note':
      return message.kind === 'compaction' ? message.text : '';
  }
}

/**
 * `/context`: what the next request would fill of the model's window, by category, with the free
 * space and the compaction reserve. Messages count as the model reads them: after a compaction, its
 * summary and what it kept, not the turns it replaced.
 */
export function contextUsage(
  session: Pick<ChatSession, 'systemPrompt' | 'tools' | 'messages'>,
  options: { window: number | undefined; compactionThreshold: number | undefined },
): ContextUsage {
  const parts = splitSystemPrompt(session.systemPrompt);
  const declarations = session.tools.declarations();
  const toolTokens = (mcp: boolean) =>
    declarations.filter((tool) => tool.name.startsWith('mcp__') === mcp).reduce((sum, tool) => sum + estimateTokens(JSON.stringify(tool)), 0);
  const categories: ContextCategory[] = [
    { name: 'System prompt', tokens: estimateTokens(parts.instructions) },
    { name: 'Built-in tools', tokens: toolTokens(false) },
    { name: 'MCP tools', tokens: toolTokens(true) },
    { name: 'Context files', tokens: estimateTokens(parts.contextFiles) },
    { name: 'Skills', tokens: estimateTokens(parts.skills) },
    { name: 'Messages', tokens: modelView(session.messages).reduce((sum, message) => sum + estimateTokens(messageText(message)), 0) },
  ];
  const used = categories.reduce((sum, category) => sum + category.tokens, 0);
  const { window } = options;
  if (window) {
    const reserve = options.compactionThreshold === undefined ? 0 : Math.round(window * (1 - options.compactionThreshold));
    categories.push({ name: 'Free space', tokens: Math.max(0, window - used - reserve) });
    if (options.compactionThreshold !== undefined) categories.push({ name: 'Auto-compaction reserve', tokens: reserve });
  }
  return { categories, used, window, reported: contextTokens(session) };
}
