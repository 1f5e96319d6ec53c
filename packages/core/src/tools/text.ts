/** Helpers for showing file text to the model: binary sniffing, line cutting, numbering. */

/** Bytes sniffed for NUL to call a file binary (git uses the same rule and size). */
const BINARY_SNIFF_BYTES = 8000;

export function looksBinary(head: Uint8Array): boolean {
  const end = Math.min(head.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (head[i] === 0) return true;
  return false;
}

/** Cuts a line to `max` characters and says how much was left out. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [${line.length - max} more characters]`;
}

/** `N<TAB>text` lines, numbers right-aligned to the widest one, like `cat -n`. */
export function numberLines(lines: readonly string[], firstLine: number): string {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((line, i) => `${String(firstLine + i).padStart(width)}\t${line}`).join('\n');
}

export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? word : many}`;
}

// Terminal colour and cursor sequences mean nothing to the model and cost tokens.
const ANSI = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;

export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}

/** What a terminal would show for a line that redraws itself with `\r` (progress bars). */
export function lastCarriageSegment(line: string): string {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
  const at = trimmed.lastIndexOf('\r');
  return at === -1 ? trimmed : trimmed.slice(at + 1);
}
