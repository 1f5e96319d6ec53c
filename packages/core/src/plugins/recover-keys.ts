/**
 * The lenient reader for frontmatter that YAML rejects. Real plugin files write descriptions with
 * unquoted `: `, `<example>` blocks full of `user:` / `Context:` lines, and `argument-hint: [a] [b]`.
 * A new entry starts only at a known (or plain lowercase) key at column 0 outside a `<tag>` block;
 * every other line continues the value before it.
 */

const KNOWN_KEYS = new Set([
  'name',
  'description',
  'model',
  'tools',
  'color',
  'argument-hint',
  'allowed-tools',
  'triggers',
  'version',
  'license',
  'author',
  'disable-model-invocation',
  'user-invocable',
  'when_to_use',
  'when-to-use',
  'tags',
]);

// Words that open dialogue lines inside example blocks, never frontmatter keys.
const DIALOGUE_WORDS = new Set(['user', 'assistant', 'commentary', 'context', 'example', 'examples', 'note']);

const KEY_LINE = /^([A-Za-z][\w-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;
const BLOCK_INDICATOR = /^([|>])[+-]?\d*$/;

interface RawEntry {
  key: string;
  first: string;
  rest: string[];
}

export function recoverKeys(yaml: string): Record<string, string | string[]> {
  return recoverKeysWithNotes(yaml).data;
}

/**
 * `recoverKeys`, plus notes on what a sloppy file nearly lost: a known key that is not yet set
 * starts its own entry even inside an unclosed `<tag>` (`model: opus` after `<function ...>` text).
 */
export function recoverKeysWithNotes(yaml: string): { data: Record<string, string | string[]>; notes: string[] } {
  const entries: RawEntry[] = [];
  let current: RawEntry | undefined;
  let openTags = 0;
  let openTag: string | undefined;
  const rescued: string[] = [];
  let rescuedFrom: { key: string; tag: string } | undefined;
  // What a reader that honours every open tag would still consider open, to name what it would lose.
  let strictOpen = 0;
  for (const line of yaml.split(/\r?\n/)) {
    const match = KEY_LINE.exec(line);
    const key = match?.[1]?.toLowerCase();
    const strictStarts = match !== null && strictOpen === 0 && startsEntry(match[1]);
    if (!strictStarts) strictOpen = Math.max(0, strictOpen + countTags(line));
    const unseenKnown = key !== undefined && KNOWN_KEYS.has(key) && !entries.some((entry) => entry.key === key);
    if (match && key !== undefined && ((openTags === 0 && startsEntry(match[1])) || (openTags > 0 && unseenKnown))) {
      if (!strictStarts && current) {
        rescuedFrom ??= { key: current.key, tag: openTag ?? 'tag' };
        rescued.push(key);
      }
      current = { key, first: (match[2] ?? '').trim(), rest: [] };
      entries.push(current);
      openTags = 0;
      continue;
    }
    if (current) current.rest.push(line);
    const before = openTags;
    openTags = Math.max(0, openTags + countTags(line));
    if (before === 0 && openTags > 0) openTag = /<([A-Za-z][\w-]*)/.exec(line)?.[1];
  }
  const data: Record<string, string | string[]> = {};
  for (const entry of entries) {
    // The first occurrence wins, as it would for a reader skimming the file.
    if (data[entry.key] === undefined) data[entry.key] = entryValue(entry);
  }
  const notes = rescuedFrom
    ? [`an unclosed <${rescuedFrom.tag}> tag in ${rescuedFrom.key} would have hidden ${rescued.join(', ')}; they were read as keys`]
    : [];
  return { data, notes };
}

function startsEntry(key: string): boolean {
  const lower = key.toLowerCase();
  if (KNOWN_KEYS.has(lower)) return true;
  return key === lower && !DIALOGUE_WORDS.has(lower);
}

/** Net `<tag>` openings on a line, so keys inside `<example>...</example>` stay text. */
function countTags(line: string): number {
  const opens = line.match(/<[A-Za-z][\w-]*(?:\s[^>]*)?>/g)?.length ?? 0;
  const closes = line.match(/<\/[A-Za-z][\w-]*\s*>/g)?.length ?? 0;
  return opens - closes;
}

function entryValue(entry: RawEntry): string | string[] {
  const rest = trimBlankEnds(entry.rest);
  const block = BLOCK_INDICATOR.exec(entry.first);
  if (block) return blockScalar(rest, block[1] === '>');
  if (entry.first === '' && rest.length > 0 && rest.every((line) => /^\s*-(\s|$)/.test(line) || line.trim() === '')) {
    return rest
      .filter((line) => line.trim() !== '')
      .map((line) => unquote(line.replace(/^\s*-\s*/, '').trim()))
      .filter((item) => item !== '');
  }
  if (rest.length === 0) return unquote(entry.first);
  return [entry.first, ...dedent(rest)].join('\n').trim();
}

function blockScalar(lines: string[], folded: boolean): string {
  const body = dedent(lines);
  if (!folded) return body.join('\n').trim();
  // Folding: single newlines become spaces, blank lines stay paragraph breaks.
  return body
    .join('\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .join('\n')
    .trim();
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(common).trimEnd());
}

function trimBlankEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start].trim() === '') start += 1;
  while (end > start && lines[end - 1].trim() === '') end -= 1;
  return lines.slice(start, end);
}

function unquote(text: string): string {
  const quoted = /^(['"])([\s\S]*)\1$/.exec(text);
  return quoted ? quoted[2] : text;
}
