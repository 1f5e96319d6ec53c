// Wide enough for a "Use this agent when ..." sentence, short enough for one terminal line.
const MAX_SUMMARY = 160;

/**
 * One line for listings such as `/agents`: the description up to its first `<example>` block (real
 * agents carry several, with whole dialogues), whitespace folded, cut at a word with an ellipsis.
 */
export function summaryLine(description: string, max = MAX_SUMMARY): string {
  const beforeExamples = description.split(/<example\b|^\s*examples?:\s*$/im)[0] ?? '';
  // "... Examples:" that only introduced the blocks goes with them.
  const flat = beforeExamples
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\s*(?:for )?examples?:?$/i, '')
    .replace(/[\s:,;-]+$/, '');
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}
