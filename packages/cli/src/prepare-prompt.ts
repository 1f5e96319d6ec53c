import { expandCommand, skillsTriggeredBy, userMessage, type PluginCatalog, type UserMessage, type SkillEntry } from '@beans/core';
import { BUILTIN_COMMAND_NAMES } from './builtin-commands.js';

export type Prepared = { messages: UserMessage[] } | { error: string };

/**
 * Turns what the user typed into the messages of a run: `/command args` expands a plugin command,
 * `/skill args` loads a skill, and a skill's trigger phrase loads it before the message.
 */
export async function preparePrompt(text: string, catalog: PluginCatalog): Promise<Prepared> {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Type a message first.' };

  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) {
    const head = trimmed.slice(1).split(/\s+/, 1)[0] ?? '';
    const args = trimmed.slice(1 + head.length).trim();
    if (BUILTIN_COMMAND_NAMES.includes(head)) return { error: `/${head} is a chat command; it works in \`beans chat\`, not here.` };
    const expanded = await expandCommand(trimmed, catalog, BUILTIN_COMMAND_NAMES);
    if (expanded) return { messages: [userMessage(expanded.prompt, 'command', trimmed)] };
    const skill = catalog.findSkill(head);
    if (skill) {
      const messages: UserMessage[] = [await skillMessage(skill)];
      messages.push(userMessage(args || `Use the ${skill.name} skill.`, 'prompt', trimmed));
      return { messages };
    }
    return { error: `Unknown command /${head}. Type /help for the list.` };
  }

  const messages: UserMessage[] = [];
  for (const skill of skillsTriggeredBy(trimmed, catalog)) messages.push(await skillMessage(skill));
  messages.push(userMessage(trimmed));
  return { messages };
}

async function skillMessage(skill: SkillEntry): Promise<UserMessage> {
  const body = await skill.loadBody();
  return userMessage(`<skill name="${skill.name}" folder="${skill.dir}">\n${body.trim()}\n</skill>`, 'skill', `loaded skill ${skill.name}`);
}
