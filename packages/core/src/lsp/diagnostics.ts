import type { Diagnostic } from 'vscode-languageserver-protocol';

// What the model reads after an edit: the errors and warnings the edit introduced, one short line
// each (`file:line:col severity code: message`), at most a few per file and the count of the rest.

const MAX_DIAGNOSTICS_PER_FILE = 10;
const MAX_MESSAGE_CHARS = 300;

const SEVERITY: Record<number, string> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

/** Errors and warnings only: information and hints (unused-variable fades) would crowd out what breaks. */
export function errorsAndWarnings(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((diagnostic) => (diagnostic.severity ?? 1) <= 2);
}

/** A diagnostic's identity regardless of where it sits: an edit above it moves it without making it new. */
function identity(diagnostic: Diagnostic): string {
  return `${diagnostic.severity ?? 1}|${diagnostic.code ?? ''}|${messageOf(diagnostic)}`;
}

/** LSP 3.18 lets a message be Markdown; either way it is text here. */
function messageOf(diagnostic: Diagnostic): string {
  return typeof diagnostic.message === 'string' ? diagnostic.message : diagnostic.message.value;
}

/**
 * The diagnostics of `after` that `before` did not have, counted as a multiset (a second copy of an
 * old error is new). `before` undefined means the file had none (it is new, or was empty).
 */
export function newDiagnostics(after: readonly Diagnostic[], before: readonly Diagnostic[] | undefined): { fresh: Diagnostic[]; old: number } {
  const remaining = new Map<string, number>();
  for (const diagnostic of before ?? []) remaining.set(identity(diagnostic), (remaining.get(identity(diagnostic)) ?? 0) + 1);
  const fresh: Diagnostic[] = [];
  let old = 0;
  for (const diagnostic of after) {
    const key = identity(diagnostic);
    const count = remaining.get(key) ?? 0;
    if (count > 0) {
      remaining.set(key, count - 1);
      old++;
    } else fresh.push(diagnostic);
  }
  return { fresh, old };
}

/** One line: `src/a.ts:3:7 error TS2322: message` (1-based line and column, as editors show them). */
function formatDiagnostic(file: string, diagnostic: Diagnostic): string {
  const { line, character } = diagnostic.range.start;
  const code =
    diagnostic.code !== undefined && diagnostic.code !== ''
      ? ` ${typeof diagnostic.code === 'number' && diagnostic.source === 'typescript' ? `TS${diagnostic.code}` : diagnostic.code}`
      : '';
  const message = messageOf(diagnostic)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  const cut = message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
  return `${file}:${line + 1}:${character + 1} ${SEVERITY[diagnostic.severity ?? 1] ?? 'error'}${code}: ${cut}`;
}

/** The lines for one file: the first `max` by position, then how many more there are. */
export function formatFileDiagnostics(file: string, diagnostics: readonly Diagnostic[], max = MAX_DIAGNOSTICS_PER_FILE): string[] {
  const sorted = [...diagnostics].sort(
    (a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
  const lines = sorted.slice(0, max).map((diagnostic) => formatDiagnostic(file, diagnostic));
  if (sorted.length > max) lines.push(`… and ${sorted.length - max} more in ${file}`);
  return lines;
}
