import { userMessage } from '../agent/chat-session.js';
import type { UserMessage } from '../agent/types.js';
import { builtinPromptMessage } from './init-prompt.js';
import {
  BUILTIN_COMMAND_NAMES,
  expandAttachments,
  expandSlashInput,
  parseSlashInput,
  runCommandShell,
  shadowingNotice,
  skillsTriggeredBy,
  triggeredSkillMessage,
  type CommandRunScope,
  type CommandShellOptions,
  type PluginCatalog,
} from '../plugins/index.js';

/** `run`: what a plugin command's frontmatter changes for the run it starts; `notices`: what the person should be told before it runs. */
export type Prepared = { messages: UserMessage[]; run?: CommandRunScope; notices?: string[] } | { error: string };

/** How a command's ``!`cmd` `` lines run and its `@path` references resolve; without it they stay text. */
export interface CommandPreprocessing {
  workspaceRoot: string;
  runShell: CommandShellOptions['runShell'];
  /** Given the command's run scope, whether one command line may run. */
  isAllowed(run: CommandRunScope): CommandShellOptions['isAllowed'];
  /** False for a command from the workspace of a folder the user has not trusted: its allowed-tools grant nothing. */
  commandTrusted(commandPath: string): boolean;
  signal?: AbortSignal;
  /** The session's read_file deny rules, for the command's `@path` references. */
  readDenied?: (relativePath: string) => boolean;
}

/**
 * Turns what the user typed into the messages of a run: `/command args` expands a plugin command,
 * `/skill args` loads a skill, and a skill's trigger phrase loads it before the message.
 * Built-in chat commands are handled by the UI before this is called.
 */
export async function preparePrompt(text: string, catalog: PluginCatalog, preprocessing?: CommandPreprocessing): Promise<Prepared> {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Type a message first.' };

  // `/name args` is a command; a path such as `/etc/hosts is odd` is just text.
  const slash = parseSlashInput(trimmed);
  if (slash) {
    // `/init` is the agent's own work, so it runs in every mode.
    const builtin = builtinPromptMessage(slash.name, slash.args);
    if (builtin) return { messages: [builtin] };
    if (BUILTIN_COMMAND_NAMES.includes(slash.name)) return { error: `/${slash.name} is a chat command; it works in \`beans chat\`, not in a one-shot run.` };
    const expanded = await expandSlashInput(trimmed, catalog, BUILTIN_COMMAND_NAMES);
    const shadowing =
      expanded &&
      preprocessing &&
      shadowingNotice(slash.name, expanded.kind === 'command' ? expanded.command : expanded.skill, catalog, preprocessing.workspaceRoot);
    const notices = shadowing ? { notices: [shadowing] } : {};
    if (expanded?.kind === 'command' && preprocessing) {
      const commandName = `/${expanded.command.qualifiedName}`;
      const trusted = preprocessing.commandTrusted(expanded.command.path);
      const run = trusted ? expanded.run : { ...expanded.run, allowedTools: [] };
      const shell = await runCommandShell(expanded.prompt, {
        runShell: preprocessing.runShell,
        isAllowed: preprocessing.isAllowed(run),
        signal: preprocessing.signal ?? new AbortController().signal,
        commandName,
        ...(trusted || expanded.run.allowedTools.length === 0
          ? {}
          : { deniedBecause: `this folder is not trusted, so the allowed-tools of ${commandName} do not apply; \`beans trust\` trusts it` }),
      });
      const attached = await expandAttachments(shell, preprocessing.workspaceRoot, { readDenied: preprocessing.readDenied });
      if ('error' in attached) return attached;
      const message = userMessage(attached.text, expanded.origin, expanded.display);
      return { messages: [attached.parts.length > 0 ? { ...message, parts: attached.parts } : message], run, ...notices };
    }
    if (expanded) return { messages: [userMessage(expanded.prompt, expanded.origin, expanded.display)], ...notices };
    return { error: `Unknown command /${slash.name}. \`beans plugins list\` shows the commands and skills plugins add; /help lists them in chat.` };
  }

  const messages: UserMessage[] = [];
  for (const skill of skillsTriggeredBy(trimmed, catalog)) {
    messages.push(userMessage(await triggeredSkillMessage(skill), 'skill', `loaded skill ${skill.name}`));
  }
  messages.push(userMessage(trimmed));
  return { messages };
}
