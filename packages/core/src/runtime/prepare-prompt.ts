import { userMessage } from '../agent/chat-session.js';
import type { UserMessage } from '../agent/types.js';
import { BUILTIN_COMMAND_NAMES, expandSlashInput, parseSlashInput, skillsTriggeredBy, triggeredSkillMessage, type PluginCatalog } from '../plugins/index.js';

export type Prepared = { messages: UserMessage[] } | { error: string };

/**
 * Turns what the user typed into the messages of a run: `/command args` expands a plugin command,
 * `/skill args` loads a skill, and a skill's trigger phrase loads it before the message.
 * Built-in chat commands are handled by the UI before this is called.
 */
export async function preparePrompt(text: string, catalog: PluginCatalog): Promise<Prepared> {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Type a message first.' };

  // `/name args` is a command; a path such as `/etc/hosts is odd` is just text.
  const slash = parseSlashInput(trimmed);
  if (slash) {
    if (BUILTIN_COMMAND_NAMES.includes(slash.name)) return { error: `/${slash.name} is a chat command; it works in \`beans chat\`, not in a one-shot run.` };
    const expanded = await expandSlashInput(trimmed, catalog, BUILTIN_COMMAND_NAMES);
    if (expanded) return { messages: [userMessage(expanded.prompt, expanded.origin, expanded.display)] };
    return { error: `Unknown command /${slash.name}. \`beans plugins list\` shows the commands and skills plugins add; /help lists them in chat.` };
  }

  const messages: UserMessage[] = [];
  for (const skill of skillsTriggeredBy(trimmed, catalog)) {
    messages.push(userMessage(await triggeredSkillMessage(skill), 'skill', `loaded skill ${skill.name}`));
  }
  messages.push(userMessage(trimmed));
  return { messages };
}
