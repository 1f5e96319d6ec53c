/**
 * Reads the frontmatter most files have (`key: text` lines, lists of `- text` items, quoted text
 * without escapes) without js-yaml, whose first document costs ~4 ms of start-up. Returns
 * undefined for anything else, which js-yaml then reads: only what both readers agree on is
 * accepted here (a test compares them on every fixture and on tricky values).
 */
export function readPlainFrontmatter(yaml: string): Record<string, unknown> | undefined {
  if (!PRINTABLE.test(yaml) || LONE_SURROGATE.test(yaml)) return undefined;
  const data: Record<string, unknown> = {};
  let list: string[] | undefined;
  let listIndent = -1;
  for (const line of yaml.split(/\r?\n/)) {
    if (list) {
      const item = LIST_ITEM.exec(line);
      if (item && (listIndent === -1 || item[1].length === listIndent)) {
        listIndent = item[1].length;
        const value = plainText(item[2]);
        if (value === undefined) return undefined;
        list.push(value);
        continue;
      }
      if (list.length === 0) return undefined;
      list = undefined;
    }
    const entry = KEY_LINE.exec(line);
    if (!entry || KEYWORDS.has(entry[1]) || entry[1] === '__proto__' || Object.hasOwn(data, entry[1])) return undefined;
    if (entry[2] === undefined || entry[2] === '') {
      list = [];
      listIndent = -1;
      data[entry[1]] = list;
      continue;
    }
    const value = plainText(entry[2]);
    if (value === undefined) return undefined;
    data[entry[1]] = value;
  }
  if (list?.length === 0) return undefined;
  return data;
}

// Tabs, control characters and the like send the text to js-yaml, which has its own rules for them
// (so do \r, \u2028 and \u2029 inside a line: `.` in the patterns below does not match them).
const PRINTABLE = /^[\n\r\x20-\x7e\xa0-\ud7ff\ud800-\udfff\ue000-\ufefe\uff00-\ufffd]*$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// The value keeps its trailing spaces (plainText trims them): `(.*?)[ ]*$` is quadratic on a long run of spaces.
const KEY_LINE = /^([A-Za-z_][\w-]*):(?:[ ]+(.*))?$/;
const LIST_ITEM = /^([ ]*)- (.*)$/;
// YAML 1.1 words js-yaml 3 reads as null or booleans, as keys too; other words starting with a letter are text.
const KEYWORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/** The text of one value, or undefined when YAML could read it as anything but that text. */
function plainText(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  const quoted = /^"([^"\\]*)"$/.exec(value) ?? /^'([^']*)'$/.exec(value);
  if (quoted) return quoted[1];
  // A letter first rules out numbers, dates, quotes, anchors, tags, flow collections and blocks;
  // `: ` would start a mapping and ` #` a comment.
  if (!/^[A-Za-z]/.test(value) || value.includes(': ') || value.includes(' #') || value.endsWith(':')) return undefined;
  return KEYWORDS.has(value) ? undefined : value;
}
