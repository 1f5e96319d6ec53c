import { StringDecoder } from 'node:string_decoder';
import { EMPTY_EDITOR } from './editor.js';
import { INPUT_PLACEHOLDER, renderInput } from './input-view.js';
import { renderStatus } from './status-line.js';
import { S, span, type SpanStyle, type StyledLine } from './styled.js';
import { typedReads } from './keys.js';
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON, CLEAR_TERMINAL, HIDE_CURSOR, SHOW_CURSOR, SYNC_START } from './terminal-codes.js';
import { THEMES, textProps, type ThemeName } from './theme.js';

/**
 * The chat's first frame (the input box and the status line) drawn as plain escape sequences
 * before the agent session is built and before Ink, React and Yoga load (~100 ms of a chat's
 * start, at the time of writing). Ink draws the same rows in its place once the session exists;
 * what it knows only then (the header, the model a provider picks, notices) fills in at that moment.
 * Keys typed meanwhile wait in the terminal (raw mode, so they are not echoed) and reach the chat
 * when it starts reading: nothing typed is lost, and a prompt sent early waits for the session.
 */
export interface FirstFrameInfo {
  width: number;
  /** Terminal rows: the input box may take a third of them, as in the live layout. */
  rows: number;
  theme: ThemeName;
  noColor: boolean;
  /** The permission mode the settings and flags give. */
  mode: string;
  /** The model the settings name; a provider's default is known only once the session is built. */
  model?: string;
  branch?: string;
  vim: boolean;
}

/** The live area the chat lays out for a fresh session (layout.ts), from what the settings say. */
export function firstFrameLines(info: FirstFrameInfo): StyledLine[] {
  const { width } = info;
  // layoutLive's budget: the screen less one row, less the status row, then a third for the input.
  const budget = Math.max(2, info.rows - 1) - 1;
  const input = renderInput(EMPTY_EDITOR, { width, maxRows: Math.min(10, Math.max(1, Math.floor(budget / 3))), placeholder: INPUT_PLACEHOLDER });
  const status = renderStatus(
    {
      model: info.model ?? '',
      branch: info.branch,
      inputTokens: 0,
      outputTokens: 0,
      queued: 0,
      mode: info.mode,
      hint: '/help for commands',
      ...(info.vim ? { vimMode: 'insert' as const } : {}),
    },
    width,
  );
  return [[span('─'.repeat(width), S.gray)], ...input, status];
}

const NAMED: Record<string, number> = { black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37, gray: 90, grey: 90 };

/** A colour as Ink (chalk) takes it: a name, a `...Bright` name, or `#rrggbb` (printed as 256 colours unless the terminal says truecolor). */
function colorCode(color: string, env: NodeJS.ProcessEnv): string | undefined {
  const bright = /^(\w+)Bright$/.exec(color);
  if (bright) return NAMED[bright[1]] === undefined ? undefined : String(NAMED[bright[1]] + 60);
  if (NAMED[color] !== undefined) return String(NAMED[color]);
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color);
  if (!hex) return undefined;
  const [r, g, b] = hex.slice(1).map((part) => Number.parseInt(part, 16)) as [number, number, number];
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return `38;2;${r};${g};${b}`;
  // chalk's rgb -> ansi256: the 6x6x6 cube, or the gray ramp when the three are equal.
  if (r === g && g === b) return `38;5;${r < 8 ? 16 : r > 248 ? 231 : Math.round(((r - 8) / 247) * 24) + 232}`;
  return `38;5;${16 + 36 * Math.round((r / 255) * 5) + 6 * Math.round((g / 255) * 5) + Math.round((b / 255) * 5)}`;
}

/** Styled rows as terminal text under a theme (NO_COLOR keeps bold, dim and inverse, as the chat does). */
export function linesToAnsi(lines: StyledLine[], theme: ThemeName, noColor: boolean, env: NodeJS.ProcessEnv = process.env): string {
  // The same props the chat gives Ink's <Text> (theme colours, NO_COLOR, a theme without dim), as SGR codes.
  const sgr = (style: SpanStyle | undefined): string[] => {
    const props = textProps(style, noColor, THEMES[theme]);
    const codes: string[] = [];
    const color = props.color ? colorCode(props.color, env) : undefined;
    if (color) codes.push(color);
    if (props.bold) codes.push('1');
    if (props.dimColor) codes.push('2');
    if (props.italic) codes.push('3');
    if (props.underline) codes.push('4');
    if (props.inverse) codes.push('7');
    if (props.strikethrough) codes.push('9');
    return codes;
  };
  return lines
    .map((line) =>
      line
        .map((part) => {
          const codes = sgr(part.style);
          return codes.length ? `\x1b[${codes.join(';')}m${part.text}\x1b[0m` : part.text;
        })
        .join(''),
    )
    .join('\n');
}

export interface FirstFrame {
  /**
   * The chat takes the terminal over: returns what erases the frame, to write with Ink's first
   * frame (opening a synchronized update that Ink's frame closes, so the screen never shows it
   * empty). Keys read from now on wait for `replay`.
   */
  handOver(): string;
  /**
   * Once the chat can take keys: hands it what was typed, one string per read as the terminal sent
   * it, then what comes until Ink reads the terminal itself.
   */
  replay(deliver: (input: string) => void): void;
  /** Erases the frame and gives the terminal back as it was (a question or an error comes instead of the chat); what was typed goes. */
  clear(): void;
}

/** Ctrl+C twice within this long stops the start (the chat's own double Ctrl+C). */
const INTERRUPT_MS = 2000;

/**
 * Draws the first frame and reads the keys typed from then on (raw mode: nothing is echoed), each
 * read kept apart: Enter after a word must stay Enter, not become a line of a paste (keys.ts).
 */
export function drawFirstFrame(stdout: NodeJS.WriteStream, stdin: NodeJS.ReadStream, info: FirstFrameInfo, onInterrupt?: () => void): FirstFrame {
  const lines = firstFrameLines(info);
  // As Ink's log-update: each row ends with a newline, and erasing takes the row the cursor is on too.
  const erase = `\x1b[2K${'\x1b[1A\x1b[2K'.repeat(lines.length)}\x1b[G`;
  const raw = stdin.isTTY && !stdin.isRaw;
  if (raw) stdin.setRawMode(true);
  const typed: string[] = [];
  let deliver: (input: string) => void = (input) => void typed.push(input);
  const decoder = new StringDecoder('utf8');
  // Raw mode turns Ctrl+C into a key: before the chat reads keys, twice within two seconds (as in
  // the chat) stops the start (a hook or server that hangs must not hold the terminal).
  let lastCtrlC = 0;
  const onData = (chunk: Buffer | string) => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (onInterrupt && !handedOver && text.includes('\x03')) {
      const now = Date.now();
      if ((text.split('\x03').length > 2 || now - lastCtrlC < INTERRUPT_MS) && !done) return onInterrupt();
      lastCtrlC = now;
    }
    for (const input of typedReads(text)) deliver(input);
  };
  stdin.on('data', onData);
  stdout.write(`${BRACKETED_PASTE_ON}${HIDE_CURSOR}${linesToAnsi(lines, info.theme, info.noColor)}\n`);
  // A resize reflows the rows already drawn, so counting them back up no longer erases the frame:
  // then the screen is cleared instead, as the chat itself does after a resize (run-chat repaint).
  let reflowed = false;
  const onResize = () => {
    reflowed = true;
  };
  stdout.on?.('resize', onResize);
  const eraseNow = () => {
    stdout.off?.('resize', onResize);
    return reflowed ? CLEAR_TERMINAL : erase;
  };
  let done = false;
  let handedOver = false;
  return {
    handOver() {
      if (done) return '';
      done = true;
      handedOver = true;
      // Reads go on here until Ink adds its 'readable' listener (as it mounts). Pausing now would
      // stop the terminal's reads a tick after Ink found them running, and the chat would hear nothing.
      const handOff = (event: string | symbol) => {
        if (event !== 'readable') return;
        stdin.off('data', onData);
        stdin.off('newListener', handOff);
      };
      stdin.on('newListener', handOff);
      return `${SYNC_START}${eraseNow()}`;
    },
    replay(to) {
      for (const input of typed.splice(0)) to(input);
      deliver = to;
    },
    clear() {
      if (done) return;
      done = true;
      stdin.off('data', onData);
      stdin.pause();
      stdout.write(`${eraseNow()}${SHOW_CURSOR}${BRACKETED_PASTE_OFF}`);
      if (raw) stdin.setRawMode(false);
    },
  };
}
