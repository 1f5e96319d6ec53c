import type { SlashCommandInfo } from '../chat-agent.js';
import type { Editor } from './editor.js';
import { S, span, truncateLine, type StyledLine } from './styled.js';

export interface CompletionItem {
  /** What replaces the token, e.g. `/review` or `@src/app.ts`. */
  value: string;
  description?: string;
}

export interface Token {
  start: number;
  end: number;
  query: string;
}

export interface Completion {
  kind: 'slash' | 'path';
  token: Token;
  items: CompletionItem[];
  selected: number;
}

/** The command name being typed: the input starts with `/` and the cursor is still in its first word. */
export function slashToken(editor: Editor): Token | undefined {
  const { text, cursor } = editor;
  if (!text.startsWith('/')) return undefined;
  const space = text.search(/\s/);
  const end = space === -1 ? text.length : space;
  if (cursor > end) return undefined;
  return { start: 0, end, query: text.slice(1, end) };
}

/** An `@path` word around the cursor. */
export function pathToken(editor: Editor): Token | undefined {
  const { text, cursor } = editor;
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  if (text[start] !== '@') return undefined;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end])) end++;
  return { start, end, query: text.slice(start + 1, cursor) };
}

/** Commands whose name starts with the query first, then those that merely contain it. */
export function matchCommands(commands: readonly SlashCommandInfo[], query: string): CompletionItem[] {
  const needle = query.toLowerCase();
  const scored: { item: CompletionItem; rank: number; order: number }[] = [];
  commands.forEach((command, order) => {
    const name = command.name.toLowerCase();
    const local = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
    const rank = name.startsWith(needle) ? 0 : local.startsWith(needle) ? 1 : name.includes(needle) ? 2 : -1;
    if (rank < 0) return;
    const hint = command.argumentHint ? ` ${command.argumentHint}` : '';
    const tag = command.source === 'skill' ? ' (skill)' : '';
    scored.push({ item: { value: `/${command.name}`, description: `${command.description}${tag}`.trim() || hint.trim() }, rank, order });
  });
  return scored.sort((a, b) => a.rank - b.rank || a.order - b.order).map((entry) => entry.item);
}

/** Replaces the token with the chosen item; a command or file gets a space after it, a folder does not. */
export function applyCompletion(editor: Editor, completion: Completion, item: CompletionItem): Editor {
  const { text } = editor;
  const { start, end } = completion.token;
  const isFolder = item.value.endsWith('/');
  const spacer = isFolder || text[end] === ' ' ? '' : ' ';
  return { text: text.slice(0, start) + item.value + spacer + text.slice(end), cursor: start + item.value.length + (isFolder ? 0 : 1) };
}

/** The menu under the input: a window of items around the selection. */
export function renderCompletion(completion: Completion, width: number, maxRows: number): StyledLine[] {
  const rows = Math.max(0, Math.min(maxRows, completion.items.length));
  if (rows === 0) return [];
  const first = Math.min(Math.max(0, completion.selected - rows + 1), completion.items.length - rows);
  const nameWidth = Math.min(28, Math.max(...completion.items.map((item) => item.value.length)) + 2);
  const out: StyledLine[] = [];
  for (let index = first; index < first + rows; index++) {
    const item = completion.items[index];
    const selected = index === completion.selected;
    const line: StyledLine = [span(selected ? '› ' : '  ', S.cyan), span(item.value.padEnd(nameWidth), selected ? { color: 'cyan', bold: true } : undefined)];
    if (item.description) line.push(span(item.description, S.dim));
    out.push(truncateLine(line, width));
  }
  return out;
}
