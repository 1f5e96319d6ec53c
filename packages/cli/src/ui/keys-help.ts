import { table } from './command-kit.js';
import type { StyledLine } from './styled.js';

/** The chat's keys, for `?` on an empty input and /help. */
export const KEYS_HELP: readonly { name: string; description: string }[] = [
  { name: 'Enter', description: 'send (while the agent works: queue for it)' },
  { name: '\\ Enter, Alt+Enter', description: 'new line' },
  { name: '↑ ↓', description: 'earlier prompts' },
  { name: 'Ctrl+R', description: 'search earlier prompts' },
  { name: 'Tab', description: 'complete /commands and @paths' },
  { name: 'Esc', description: 'interrupt; twice on an empty input: rewind' },
  { name: 'Shift+Tab, Alt+M', description: 'permission mode' },
  { name: 'Alt+P', description: 'pick a model' },
  { name: 'Alt+T', description: 'thinking off / on' },
  { name: 'Ctrl+T', description: 'task list' },
  { name: 'Ctrl+O', description: "the last tool's whole output" },
  { name: 'Ctrl+B', description: 'running command to the background' },
  { name: 'Ctrl+X Ctrl+K', description: 'stop background tasks (twice)' },
  { name: 'Ctrl+G', description: 'edit the prompt in $EDITOR' },
  { name: 'Ctrl+_', description: 'undo' },
  { name: 'Ctrl+Y', description: 'paste the last cut (Ctrl+W, Ctrl+U, Ctrl+K)' },
  { name: 'Ctrl+S', description: 'stash the draft until the next prompt' },
  { name: 'Ctrl+V', description: 'paste an image' },
  { name: 'Ctrl+L', description: 'redraw' },
  { name: 'Ctrl+Z', description: 'suspend' },
  { name: 'Ctrl+C twice, Ctrl+D', description: 'exit' },
  { name: '! / @ #', description: 'shell command · command · file · memory note' },
];

export function renderKeysHelp(width: number, maxRows: number): StyledLine[] {
  return table([...KEYS_HELP], width, '', true).slice(0, maxRows);
}
