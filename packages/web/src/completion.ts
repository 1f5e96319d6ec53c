// `@` completion of file names, as the chat does it: the word around the cursor that starts with `@`,
// matched against the workspace's files by what was typed up to the cursor.

export interface AtToken {
  start: number;
  end: number;
  /** What was typed after the `@`, up to the cursor. */
  query: string;
}

/** The `@path` word around the cursor, if the cursor is in one. */
export function atToken(text: string, cursor: number): AtToken | undefined {
  let start = cursor;
  while (start > 0 && !/\s/.test(text[start - 1])) start--;
  if (text[start] !== '@') return undefined;
  let end = cursor;
  while (end < text.length && !/\s/.test(text[end])) end++;
  return { start, end, query: text.slice(start + 1, cursor) };
}

/** The text with the token replaced by `@file ` and where the cursor goes after it. */
export function completeAt(text: string, token: AtToken, file: string): { value: string; cursor: number } {
  const inserted = `@${file} `;
  const rest = text.slice(token.end).replace(/^ /, '');
  return { value: `${text.slice(0, token.start)}${inserted}${rest}`, cursor: token.start + inserted.length };
}
