import { EventEmitter } from 'node:events';
import { displayWidth, type StyledLine } from './styled.js';

/**
 * What Ink is given as its stdout: the real one, except that a resize never reaches it. Ink answers
 * a narrower window by erasing as many rows as it last drew, but the terminal has reflowed them by
 * then, so it erases the wrong rows; the chat handles resizes itself (run-chat). `onWrite` hears of
 * each write that reaches the terminal; `mute()` drops this view's writes for good (it is being replaced).
 */
export function inkStdout(stdout: NodeJS.WriteStream, onWrite: () => void): { stream: NodeJS.WriteStream; mute(): void } {
  const hidden = new EventEmitter();
  let muted = false;
  const write = (...args: unknown[]) => {
    if (muted) return true;
    onWrite();
    return (stdout.write as (...a: unknown[]) => boolean)(...args);
  };
  const stream = new Proxy(stdout, {
    get(target, key) {
      if (key === 'write') return write;
      if (key === 'on' || key === 'addListener' || key === 'once' || key === 'off' || key === 'removeListener') {
        return (event: string, listener: (...args: unknown[]) => void) => {
          const to = event === 'resize' ? hidden : target;
          (to[key as 'on'] as (event: string, listener: (...args: unknown[]) => void) => unknown).call(to, event, listener);
          return stream;
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { stream, mute: () => (muted = true) };
}

/**
 * Rows the live area drawn as `lines` takes after the terminal reflowed it to `width`: a row wider
 * than the new width wraps onto more rows (a wider window leaves each row one row).
 */
function reflowedRows(lines: readonly StyledLine[], width: number): number {
  // Ink writes each row without its trailing spaces, so only the cells up to the last visible one wrap.
  const drawn = (line: StyledLine) =>
    displayWidth(
      line
        .map((part) => part.text)
        .join('')
        .trimEnd(),
    );
  return lines.reduce((sum, line) => sum + Math.max(1, Math.ceil(drawn(line) / Math.max(1, width))), 0);
}

/**
 * The escape sequence that erases the live area after a reflow: Ink leaves the cursor at the start
 * of the row below its output, so up by the rows the output takes now, then erase to the end of
 * the screen. The transcript above stays where the terminal put it.
 */
export function eraseLiveArea(lines: readonly StyledLine[], width: number): string {
  const rows = reflowedRows(lines, width);
  return rows > 0 ? `\r\x1b[${rows}A\x1b[J` : '\r\x1b[J';
}
