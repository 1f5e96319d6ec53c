import { BUILTIN_COMMAND_NAMES, expandSlashInput, skillsTriggeredBy, triggeredSkillMessage, userMessage, type PluginCatalog, type UserMessage } from '@beans/core';

export type Prepared = { messages: UserMessage[] } | { error: string };

/**
 * Turns what the user typed into the messages of a run: `/command args` expands a plugin command,
 * `/skill args` loads a skill, and a skill's trigger phrase loads it before the message.
 * Built-in chat commands are handled by the UI before this is called.
 */
export async function preparePrompt(text: string, catalog: PluginCatalog): Promise<Prepared> {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Type a message first.' };

  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) {
    const name = trimmed.slice(1).split(/\s+/, 1)[0] ?? '';
    if (BUILTIN_COMMAND_NAMES.includes(name)) return { error: `/${name} is a chat command; it works in \`beans chat\`, not here.` };
    const expanded = await expandSlashInput(trimmed, catalog, BUILTIN_COMMAND_NAMES);
    if (expanded) return { messages: [userMessage(expanded.prompt, expanded.origin, expanded.display)] };
    return { error: `Unknown command /${name}. Type /help for the list.` };
  }

  const messages: UserMessage[] = [];
  for (const skill of skillsTriggeredBy(trimmed, catalog)) {
    messages.push(userMessage(await triggeredSkillMessage(skill), 'skill', `loaded skill ${skill.name}`));
  }
  messages.push(userMessage(trimmed));
  return { messages };
}
