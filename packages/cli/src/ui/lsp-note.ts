// The language server's note that core appends to an edit's result (lsp/edit-diagnostics.ts): the
// chat shows it under the edit's diff, where a diff alone would hide it from the user.
const NOTE_START = '\n\nThe language server reports new problems';

/** The note's lines (heading and one line per problem), or undefined when the result has none. */
export function languageServerNote(resultText: string): string | undefined {
  const at = resultText.indexOf(NOTE_START);
  return at === -1 ? undefined : resultText.slice(at + 2).trimEnd();
}
