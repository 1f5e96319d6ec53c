import { userMessage } from '../agent/chat-session.js';
import type { UserMessage } from '../agent/types.js';

/**
 * `/init`: the agent studies the repository and writes AGENTS.md, the file every later session
 * (of Beans, and of other agents that read AGENTS.md) starts from. Claude Code's /init writes
 * CLAUDE.md the same way; Beans reads both, and writes the vendor-neutral one.
 */
export function initPrompt(focus = ''): string {
  return [
    'Write an AGENTS.md file at the root of this repository for coding agents that will work in it later.',
    '',
    'First look around: the README, package manifests and build files, CI configuration, existing CLAUDE.md, AGENTS.md, .cursor/rules, .github/copilot-instructions.md, and the main source folders.',
    'Then write, concisely and only with what you verified in the files:',
    '1. The commands to install, build, lint, and run the tests (including one single test).',
    '2. The architecture in a few lines: the main folders and how the parts fit together, the things one only learns by reading several files.',
    '3. Conventions that are not obvious: code style, naming, error handling, how tests are written, what must never be done.',
    '',
    'Do not list every file, do not repeat generic advice, do not invent commands. If AGENTS.md already exists, improve it instead of replacing what is still true.',
    'Start the file with the line "# AGENTS.md". Write it with write_file (or edit_file for an existing one), then say in one or two sentences what it covers.',
    ...(focus.trim() ? ['', `Pay particular attention to: ${focus.trim()}`] : []),
  ].join('\n');
}

/** `/init [focus]` as the message of a run, in any mode; undefined for other input. */
export function builtinPromptMessage(name: string, args: string): UserMessage | undefined {
  if (name !== 'init') return undefined;
  return userMessage(initPrompt(args), 'command', args ? `/init ${args}` : '/init');
}
