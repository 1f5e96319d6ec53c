import stringWidth, { type Options } from 'string-width';
import stripAnsi from 'strip-ansi';

// string-width's first non-ASCII string compiles /^\p{RGI_Emoji}$/v and loads ICU's grapheme
// segmenter: about 19 ms, and the first frame (its rules, `›`, `·`, `↑`) would pay it before the
// prompt shows. These characters are one column each, never emoji, never joined into a cluster:
// printable ASCII, Latin-1 but for the soft hyphen, © and ®, general punctuation up to ※ but for
// the bidi controls, ←↑→↓, box drawing and block elements, Braille (spinners). The bundle routes
// Ink's string-width here (scripts/bundle.mjs); test/ui/string-width.test.ts checks every one
// against string-width.
export const ONE_COLUMN_EACH = /^[\u0020-\u007e\u00a0-\u00a8\u00aa-\u00ac\u00af-\u00ff\u2010-\u2029\u202f-\u203b\u2190-\u2193\u2500-\u259f\u2800-\u28ff]*$/;

export default function fastStringWidth(text: string, options?: Options): number {
  if (typeof text !== 'string' || options?.ambiguousIsNarrow === false) return stringWidth(text, options);
  // Colours and styles take no columns (string-width strips them the same way); counted, they are not one column each.
  const visible = !options?.countAnsiEscapeCodes && (text.includes('\u001b') || text.includes('\u009b')) ? stripAnsi(text) : text;
  return ONE_COLUMN_EACH.test(visible) ? visible.length : stringWidth(text, options);
}
