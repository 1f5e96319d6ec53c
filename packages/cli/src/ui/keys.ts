/**
 * Keys from the raw terminal input. Ink splits stdin into escape sequences and runs of plain
 * text; we decode those ourselves because Ink's `useInput` cannot tell a paste from typing, nor
 * Shift+Enter from Enter. Rules that keep a paste from submitting half-way:
 * - bracketed paste (`ESC[200~ … ESC[201~`) is one text event, newlines included;
 * - a run of several characters that arrives in one read is pasted (or machine-typed) text, so a
 *   carriage return inside it is a newline, never Enter. A lone `\r` is Enter, and so is a `\r`
 *   that ends a single line (typing that arrived in one read).
 */

type KeyName =
  | 'enter'
  | 'newline'
  | 'backspace'
  | 'delete'
  | 'left'
  | 'right'
  | 'up'
  | 'down'
  | 'home'
  | 'end'
  | 'pageup'
  | 'pagedown'
  | 'tab'
  | 'shift-tab'
  | 'escape'
  | 'word-left'
  | 'word-right'
  | 'delete-word-back'
  | 'undo'
  | `ctrl-${string}`
  | `alt-${string}`;

export type KeyEvent = { type: 'text'; text: string; paste: boolean } | { type: 'key'; name: KeyName };

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

const SEQUENCES: Record<string, KeyName> = {
  '\x1b': 'escape',
  '\x1b\x1b': 'escape',
  '\x1b[A': 'up',
  '\x1b[B': 'down',
  '\x1b[C': 'right',
  '\x1b[D': 'left',
  '\x1bOA': 'up',
  '\x1bOB': 'down',
  '\x1bOC': 'right',
  '\x1bOD': 'left',
  '\x1b[H': 'home',
  '\x1b[F': 'end',
  '\x1bOH': 'home',
  '\x1bOF': 'end',
  '\x1b[1~': 'home',
  '\x1b[4~': 'end',
  '\x1b[7~': 'home',
  '\x1b[8~': 'end',
  '\x1b[3~': 'delete',
  '\x1b[5~': 'pageup',
  '\x1b[6~': 'pagedown',
  '\x1b[Z': 'shift-tab',
  // Alt+Enter, and Shift+Enter as kitty / xterm modifyOtherKeys report it.
  '\x1b\r': 'newline',
  '\x1b\n': 'newline',
  '\x1b[13;2u': 'newline',
  '\x1b[13;3u': 'newline',
  '\x1b[27;2;13~': 'newline',
  '\x1b[27;3;13~': 'newline',
  '\x1b[13u': 'enter',
  '\x1b[27u': 'escape',
  '\x1b[9u': 'tab',
  '\x1b[127u': 'backspace',
  '\x1b\x7f': 'delete-word-back',
  '\x1b\b': 'delete-word-back',
  '\x1bb': 'word-left',
  '\x1bf': 'word-right',
};

function decodeSequence(sequence: string): KeyName | undefined {
  const known = SEQUENCES[sequence];
  if (known) return known;
  // Alt+letter (Option as Meta on macOS): ESC then the letter.
  const alt = /^\x1b([a-z])$/.exec(sequence);
  if (alt) return `alt-${alt[1]}`;
  // Arrows with modifiers: ESC[1;<mod>X. Ctrl or Alt moves by word; Shift is ignored.
  const arrow = /^\x1b\[1;(\d+)([ABCDHF])$/.exec(sequence);
  if (arrow) {
    const wordwise = Number(arrow[1]) > 2;
    switch (arrow[2]) {
      case 'A':
        return 'up';
      case 'B':
        return 'down';
      case 'C':
        return wordwise ? 'word-right' : 'right';
      case 'D':
        return wordwise ? 'word-left' : 'left';
      case 'H':
        return 'home';
      default:
        return 'end';
    }
  }
  // Kitty keyboard protocol: ESC[<code>;<mod>u, e.g. Ctrl+C as ESC[99;5u.
  const kitty = /^\x1b\[(\d+);(\d+)u$/.exec(sequence);
  if (kitty) {
    const modifiers = Number(kitty[2]) - 1;
    const char = String.fromCodePoint(Number(kitty[1]));
    if (modifiers & 4) {
      if (/^[a-z]$/.test(char)) return `ctrl-${char}`;
      if (char === '_' || char === '/') return 'undo';
    } else if (modifiers & 2 && /^[a-z]$/.test(char)) {
      return char === 'b' ? 'word-left' : char === 'f' ? 'word-right' : `alt-${char}`;
    }
  }
  return undefined;
}

function decodeChar(char: string): KeyEvent | undefined {
  switch (char) {
    case '\r':
      return { type: 'key', name: 'enter' };
    case '\n':
      return { type: 'key', name: 'newline' };
    case '\t':
      return { type: 'key', name: 'tab' };
    case '\x7f':
    case '\b':
      return { type: 'key', name: 'backspace' };
    // Ctrl+_ (and Ctrl+/ in most terminals): readline's and Claude Code's undo.
    case '\x1f':
      return { type: 'key', name: 'undo' };
    default: {
      const code = char.charCodeAt(0);
      if (code < 0x20) return { type: 'key', name: `ctrl-${String.fromCharCode(code + 96)}` };
      return { type: 'text', text: char, paste: false };
    }
  }
}

/** Normalises pasted text: CRLF and CR become LF, tabs become spaces, other controls go. */
function cleanPaste(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '    ')
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')
    .replace(/[\x00-\x09\x0b-\x1f\x7f]/g, '');
}

/** Turns Ink's raw input events into key events; stateful across a bracketed paste. */
export class KeyDecoder {
  private paste?: string;

  decode(raw: string): KeyEvent[] {
    if (this.paste !== undefined) {
      const end = raw.indexOf(PASTE_END);
      if (end === -1) {
        this.paste += raw;
        return [];
      }
      const text = cleanPaste(this.paste + raw.slice(0, end));
      this.paste = undefined;
      const rest = raw.slice(end + PASTE_END.length);
      return [...(text ? [{ type: 'text', text, paste: true } as const] : []), ...(rest ? this.decode(rest) : [])];
    }
    if (raw.startsWith(PASTE_START)) {
      this.paste = '';
      return this.decode(raw.slice(PASTE_START.length));
    }
    if (raw.startsWith('\x1b')) {
      const name = decodeSequence(raw);
      return name ? [{ type: 'key', name }] : [];
    }
    if ([...raw].length === 1) {
      const event = decodeChar(raw);
      return event ? [event] : [];
    }
    // One line followed by a single CR is typing that arrived in one read (a slow link, tmux
    // send-keys, a fast typist): Enter. Pastes of several lines still keep their newlines.
    const body = raw.slice(0, -1);
    if (raw.endsWith('\r') && !/[\r\n]/.test(body)) return [...this.decodeRun(body), { type: 'key', name: 'enter' }];
    return this.decodeRun(raw);
  }

  /**
   * Several characters in one read: text, with backspaces and other control keys kept as keys
   * (held-down Backspace or Ctrl+W, Ctrl+X Ctrl+K pressed fast or sent together).
   */
  private decodeRun(raw: string): KeyEvent[] {
    const out: KeyEvent[] = [];
    let text = '';
    let multiline = false;
    const flush = () => {
      if (text) out.push({ type: 'text', text: cleanPaste(text), paste: multiline });
      text = '';
    };
    for (const char of raw) {
      if (char === '\x7f' || (char < ' ' && char !== '\r' && char !== '\n' && char !== '\t')) {
        flush();
        out.push(decodeChar(char)!);
      } else {
        if (char === '\r' || char === '\n') multiline = true;
        text += char;
      }
    }
    flush();
    return out;
  }
}

/**
 * Keys typed while start-up keeps the process busy pile up and arrive as one read ("hi\rmore"),
 * which KeyDecoder would take for pasted text and its Enter for a newline. A paste is bracketed from
 * the first frame on (ESC[200~ ... ESC[201~), so an unbracketed carriage return here was typed:
 * it stays Enter (Alt+Enter, ESC CR, stays a newline).
 */
export function typedReads(text: string): string[] {
  if (text.includes('\x1b[200~')) return text ? [text] : [];
  return text.split(/(?<!\x1b)(\r)/).filter((part) => part !== '');
}
