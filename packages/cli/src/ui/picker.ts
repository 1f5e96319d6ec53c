import { S, span, truncateLine, type StyledLine } from './styled.js';

export interface PickerItem {
  label: string;
  detail?: string;
  value: string;
  /** More text typing matches besides the label and detail (a session's prompts). */
  searchText?: string;
}

/** A list the user picks one entry from with arrows and Enter (e.g. `/resume`). */
export interface Picker {
  title: string;
  items: PickerItem[];
  /** Index into the items the query keeps (`shownItems`). */
  selected: number;
  onSelect(value: string): void | Promise<void>;
  /** What Enter does, for the footer ("open" by default). */
  action?: string;
  /** Typing filters the list: every word must appear (any case) in an item's label, detail or searchText. */
  searchable?: boolean;
  query?: string;
  /** Rows shown under the list about the highlighted item. */
  preview?(value: string, width: number): StyledLine[];
  /** Keys that change the list (the resume picker's branch and workspace filters), named in the footer. */
  keys?: PickerKey[];
}

interface PickerKey {
  /** A key name as keys.ts gives it, e.g. `ctrl-b`. */
  name: string;
  /** What the footer says, e.g. `ctrl+b this branch only`. */
  hint: string;
  /** The picker after the key: its items (and hints) changed. */
  press(picker: Picker): Picker | Promise<Picker>;
}

/** The items the query keeps, in their order. */
export function shownItems(picker: Picker): PickerItem[] {
  const words = (picker.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return picker.items;
  return picker.items.filter((item) => {
    const text = `${item.label}\n${item.detail ?? ''}\n${item.searchText ?? ''}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

export function movePicker(picker: Picker, delta: number): Picker {
  const count = shownItems(picker).length;
  if (count === 0) return picker;
  return { ...picker, selected: Math.min(count - 1, Math.max(0, picker.selected + delta)) };
}

/** A searchable picker's query after typing or Backspace; the highlight goes back to the first match. */
export function editQuery(picker: Picker, edit: { type: 'text'; text: string } | { type: 'backspace' }): Picker {
  const query = picker.query ?? '';
  const next = edit.type === 'text' ? query + edit.text.replace(/\s+/g, ' ') : query.slice(0, -1);
  return { ...picker, query: next, selected: 0 };
}

export function renderPicker(picker: Picker, width: number, maxRows: number): StyledLine[] {
  const items = shownItems(picker);
  const highlighted = items[picker.selected];
  const preview = highlighted && picker.preview ? picker.preview(highlighted.value, width) : [];
  const fixed = 2 + (picker.searchable ? 1 : 0);
  const previewRows = preview.slice(0, Math.max(0, Math.min(preview.length, Math.floor((maxRows - fixed) / 2))));
  const listRows = Math.max(1, Math.min(items.length, maxRows - fixed - previewRows.length));
  const first = Math.min(Math.max(0, picker.selected - listRows + 1), Math.max(0, items.length - listRows));
  const count = picker.query ? `  (${items.length} of ${picker.items.length})` : `  (${picker.items.length})`;
  const out: StyledLine[] = [truncateLine([span(picker.title, S.bold), span(count, S.dim)], width)];
  if (picker.searchable) out.push(truncateLine([span('Search: ', S.dim), span(picker.query ?? ''), span('▏', S.cyan)], width));
  if (items.length === 0) out.push([span('  (nothing matches)', S.dim)]);
  for (let index = first; index < first + listRows && index < items.length; index++) {
    const item = items[index];
    const selected = index === picker.selected;
    const line: StyledLine = [span(selected ? '› ' : '  ', S.cyan), span(item.label, selected ? { color: 'cyan', bold: true } : undefined)];
    if (item.detail) line.push(span(`  ${item.detail}`, S.dim));
    out.push(truncateLine(line, width));
  }
  out.push(...previewRows);
  const keys = (picker.keys ?? []).map((key) => ` · ${key.hint}`).join('');
  out.push(
    truncateLine([span(`${picker.searchable ? 'type to search · ' : ''}↑↓ choose · Enter ${picker.action ?? 'open'} · Esc cancel${keys}`, S.dim)], width),
  );
  return out.slice(0, Math.max(1, maxRows));
}
