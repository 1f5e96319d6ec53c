/** What every built-in chat command is given, and the small layouts they share (kept apart so command files do not import each other). */
import { summaryLine, type ChatSession, type NoteMessage, type UsageTotals } from '@beans/core';
import type { ChatAgent } from '../chat-agent.js';
import type { Picker } from './picker.js';
import type { StatusCommand } from './status-command.js';
import { S, span, truncateLine, wrapSpans, type StyledLine } from './styled.js';
import type { ThemeName } from './theme.js';

/** What a built-in command may do to the UI. Its functions are callbacks (commands destructure them), not methods. */
export interface CommandContext {
  host: ChatAgent;
  session: ChatSession;
  width: number;
  print: (lines: StyledLine[]) => void;
  note: (kind: NoteMessage['kind'], text: string) => void;
  exit: (code: number) => void;
  /** Runs a host operation with a spinner; Esc aborts it through the signal. */
  runTask: (label: string, task: (signal: AbortSignal) => Promise<void>) => Promise<void>;
  /** Tokens and cost of the whole conversation, stored turns included. */
  usage: UsageTotals;
  /** Shows a list to pick from (arrows, Enter, Esc). */
  openPicker: (picker: Picker) => void;
  /** Empties the transcript (the header stays) and redraws a clean screen. */
  clearScreen: () => void;
  /** Puts text in the input box (a rewound message, to edit and send again). */
  setInput: (text: string) => void;
  /** Redraws the transcript from the conversation (after it was cut by a rewind). */
  reloadConversation: () => void;
  /** The theme in use; `setTheme` switches it and redraws. */
  theme: ThemeName;
  setTheme: (theme: ThemeName) => void;
  /** Writes control data straight to the terminal (OSC 52 for /copy); false when there is none. */
  writeTerminal: (data: string) => boolean;
  /** The input's key bindings now; `/vim` switches them. */
  editorMode: 'normal' | 'vim';
  setEditorMode: (mode: 'normal' | 'vim') => void;
  /** The custom status line's command (`/statusline`), when one is set. */
  statusLine?: StatusCommand;
}

export interface Builtin {
  description: string;
  argumentHint?: string;
  /** Refused while the agent works: it would change the session under the running turn. */
  idleOnly?: boolean;
  /** Absent for a prompt the agent runs (`/init`): the host expands it like a plugin command, in every mode. */
  run?(args: string, context: CommandContext): void | Promise<void>;
}

/** `oneLine` rows show the description's summary cut to the width: agents carry whole dialogues. */
export function table(rows: { name: string; description: string }[], width: number, emptyText: string, oneLine = false): StyledLine[] {
  if (rows.length === 0) return [[span(emptyText, S.dim)]];
  const nameWidth = Math.min(Math.max(...rows.map((row) => row.name.length)) + 2, Math.max(12, Math.floor(width / 3)));
  return rows.flatMap((row) => {
    const name = row.name.length >= nameWidth ? `${row.name} ` : row.name.padEnd(nameWidth);
    const first = [span('  '), span(name, { color: 'cyan' })];
    if (oneLine) return [truncateLine([...first, span(summaryLine(row.description), S.dim)], width)];
    return wrapSpans([span(row.description, S.dim)], width, { first, continuation: [span(' '.repeat(2 + nameWidth))] });
  });
}

export function heading(text: string): StyledLine {
  return [span(text, S.bold)];
}

export { contextTokens } from '@beans/core';
