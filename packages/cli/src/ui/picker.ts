import { S, span, truncateLine, type StyledLine } from './styled.js';

export interface PickerItem {
  label: string;
  detail?: string;
  value: string;
}

/** A list the user picks one entry from with arrows and Enter (e.g. `/resume`). */
export interface Picker {
  title: string;
  items: PickerItem[];
  selected: number;
  onSelect(value: string): void | Promise<void>;
  /** What Enter does, for the footer ("open" by default). */
  action?: string;
}

export function movePicker(picker: Picker, delta: number): Picker {
  const count = picker.items.length;
  if (count === 0) return picker;
  return { ...picker, selected: Math.min(count - 1, Math.max(0, picker.selected + delta)) };
}

export function renderPicker(picker: Picker, width: number, maxRows: number): StyledLine[] {
  const listRows = Math.max(1, Math.min(picker.items.length, maxRows - 2));
  const first = Math.min(Math.max(0, picker.selected - listRows + 1), Math.max(0, picker.items.length - listRows));
  const out: StyledLine[] = [truncateLine([span(picker.title, S.bold), span(`  (${picker.items.length})`, S.dim)], width)];
  for (let index = first; index < first + listRows && index < picker.items.length; index++) {
    const item = picker.items[index]!;
    const selected = index === picker.selected;
    const line: StyledLine = [span(selected ? '› ' : '  ', S.cyan), span(item.label, selected ? { color: 'cyan', bold: true } : undefined)];
    if (item.detail) line.push(span(`  ${item.detail}`, S.dim));
    out.push(truncateLine(line, width));
  }
  out.push(truncateLine([span(`↑↓ choose · Enter ${picker.action ?? 'open'} · Esc cancel`, S.dim)], width));
  return out.slice(0, Math.max(1, maxRows));
}
