import type { KeyEvent } from './keys.js';
import { S, span, truncateLine, type SpanStyle, type StyledLine } from './styled.js';

/** One earlier prompt as the search shows it: on one line, with the matched characters. */
export interface HistoryMatch {
  text: string;
  line: string;
  /** Indexes of matched characters (code points of `line`). */
  positions: ReadonlySet<number>;
}

export type HistorySearchAction = { type: 'accept'; text: string } | { type: 'leave' };

interface Entry {
  text: string;
  line: string;
  /** 0 = newest: ties in score go to the newer prompt. */
  index: number;
}

type Finder = (query: string) => HistoryMatch[];

/** One match of fzf's `find`, typed here: fzf's own typings import "./finders" without an extension, which NodeNext cannot resolve. */
interface FzfMatch {
  item: Entry;
  positions: Set<number>;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * Ctrl+R: a fuzzy search of earlier prompts (fzf's algorithm, from the `fzf` package, loaded only
 * when the search opens). Matches are ordered by score and, at equal score, newest first, as fzf's
 * own Ctrl+R does with `--tiebreak=index`; an empty query lists every prompt newest first.
 */
export class HistorySearch {
  query = '';
  matches: HistoryMatch[] = [];
  selected = 0;
  /** Until the stored sessions are read and the matcher is loaded. */
  loading = true;
  private entries: Entry[] = [];
  private finder?: Finder;

  constructor(private readonly changed: () => void) {}

  /** Fills the search from prompts (newest first, duplicates allowed: the first one counts). */
  async load(prompts: Promise<string[]>): Promise<void> {
    const [texts, { Fzf }] = await Promise.all([prompts, import('fzf')]);
    const seen = new Set<string>();
    for (const text of texts) {
      const trimmed = text.trim();
      if (!trimmed || seen.has(trimmed)) continue;
      seen.add(trimmed);
      this.entries.push({ text: trimmed, line: oneLine(trimmed), index: this.entries.length });
    }
    const newestFirst = (a: { item: Entry }, b: { item: Entry }) => a.item.index - b.item.index;
    const fzf: { find(query: string): FzfMatch[] } = new Fzf(this.entries, {
      selector: (entry: Entry) => entry.line,
      casing: 'smart-case',
      tiebreakers: [newestFirst],
    });
    this.finder = (query) => fzf.find(query).map((result) => ({ text: result.item.text, line: result.item.line, positions: result.positions }));
    this.loading = false;
    this.refresh();
  }

  handleKey(event: KeyEvent): HistorySearchAction | undefined {
    if (event.type === 'text') {
      this.query += event.text.replace(/\n/g, ' ');
      this.refresh();
      return undefined;
    }
    switch (event.name) {
      case 'enter':
      case 'tab': {
        const match = this.matches[this.selected];
        return match ? { type: 'accept', text: match.text } : { type: 'leave' };
      }
      case 'escape':
      case 'ctrl-g':
        return { type: 'leave' };
      case 'backspace':
        this.query = [...this.query].slice(0, -1).join('');
        this.refresh();
        return undefined;
      case 'delete-word-back':
      case 'ctrl-w':
      case 'ctrl-u':
        this.query = '';
        this.refresh();
        return undefined;
      // Ctrl+R again goes further back, as in a shell.
      case 'ctrl-r':
      case 'down':
      case 'ctrl-n':
        return this.move(1);
      case 'up':
      case 'ctrl-p':
        return this.move(-1);
      case 'pagedown':
        return this.move(10);
      case 'pageup':
        return this.move(-10);
      default:
        return undefined;
    }
  }

  private move(delta: number): undefined {
    if (this.matches.length === 0) return undefined;
    this.selected = Math.min(this.matches.length - 1, Math.max(0, this.selected + delta));
    this.changed();
    return undefined;
  }

  private refresh(): void {
    this.selected = 0;
    if (this.finder)
      this.matches = this.query.trim() ? this.finder(this.query) : this.entries.map((entry) => ({ text: entry.text, line: entry.line, positions: new Set() }));
    this.changed();
  }
}

const MATCHED: SpanStyle = { color: 'yellow', bold: true };

/** The search as rows: the matches (selected one marked), then the query line and the keys. */
export function renderHistorySearch(search: HistorySearch, width: number, maxRows: number): StyledLine[] {
  const footer = truncateLine([span('↑↓/Ctrl+R choose · Enter put in the input · Esc leave', S.dim)], width);
  const count = search.loading ? 'reading history…' : `${search.matches.length} prompt${search.matches.length === 1 ? '' : 's'}`;
  const queryLine = truncateLine(
    [span('search prompts: ', { color: 'cyan', bold: true }), span(search.query), span(' ', S.inverse), span(`  ${count}`, S.dim)],
    width,
  );
  const listRows = Math.max(0, Math.min(search.matches.length, maxRows - 2));
  const first = Math.min(Math.max(0, search.selected - listRows + 1), Math.max(0, search.matches.length - listRows));
  const list: StyledLine[] = [];
  for (let index = first; index < first + listRows; index++) {
    const match = search.matches[index];
    const selected = index === search.selected;
    const line: StyledLine = [span(selected ? '› ' : '  ', S.cyan)];
    const base: SpanStyle | undefined = selected ? { color: 'cyan', bold: true } : undefined;
    [...match.line].forEach((char, at) => line.push(span(char, match.positions.has(at) ? MATCHED : base)));
    list.push(truncateLine(mergeSpans(line), width));
  }
  if (!search.loading && search.matches.length === 0)
    list.push([span(search.query ? '  no earlier prompt matches' : '  no earlier prompts in this workspace', S.dim)]);
  return [...list, queryLine, footer].slice(-Math.max(1, maxRows));
}

/** Joins neighbouring characters of one style into one span (fewer spans to draw). */
function mergeSpans(line: StyledLine): StyledLine {
  const out: StyledLine = [];
  for (const part of line) {
    const last = out[out.length - 1];
    if (last && last.style === part.style) out[out.length - 1] = { ...last, text: last.text + part.text };
    else out.push(part);
  }
  return out;
}
