import { BUILTIN_COMMAND_NAMES as CORE_BUILTIN_NAMES } from '@beans/core';
import type { SlashCommandInfo } from './chat-host.js';

/** Chat commands Beans handles itself; they win over plugin commands of the same name. */
export const BUILTIN_COMMANDS: SlashCommandInfo[] = [
  { name: 'help', description: 'list every command', source: 'builtin' },
  { name: 'profile', description: 'show the active profile and why it was chosen', source: 'builtin' },
  { name: 'sop', description: 'show or set the standard operating procedure', argumentHint: '[text]', source: 'builtin' },
  { name: 'clear', description: 'start a fresh conversation', source: 'builtin' },
  { name: 'model', description: 'list models or switch to one', argumentHint: '[name]', source: 'builtin' },
  { name: 'agents', description: 'list plugin agents', source: 'builtin' },
  { name: 'skills', description: 'list skills', source: 'builtin' },
  { name: 'tools', description: 'list the tools the model can use', source: 'builtin' },
  { name: 'cost', description: 'tokens and cost of this session', source: 'builtin' },
  { name: 'resume', description: 'pick a past session to continue', source: 'builtin' },
  { name: 'compact', description: 'summarise older turns to free context', source: 'builtin' },
  { name: 'exit', description: 'leave Beans', source: 'builtin' },
  { name: 'quit', description: 'leave Beans', source: 'builtin' },
];

/** Core decides which names are reserved (plugin commands of these names are reported as clashes). */
export const BUILTIN_COMMAND_NAMES = CORE_BUILTIN_NAMES;
