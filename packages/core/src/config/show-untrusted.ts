// A repository chooses the keys, values and server names Beans names in its trust warnings, and
// those lines go to a terminal: everything a terminal could act on (C0 and C1 controls, ESC, DEL,
// bidirectional overrides that reorder what the user reads) is shown as a \u escape instead.

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/gu;
const MAX_SHOWN = 120;

/** Text from a repository, safe to print and at most `max` characters. */
export function showUntrusted(text: string, max = MAX_SHOWN): string {
  const escaped = text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}

/** A settings key as the warning names it. */
export function showSettingKey(key: string): string {
  return showUntrusted(key, 200);
}

/** A settings value as the warning shows it: JSON, escaped, cut when long. */
export function showSettingValue(value: unknown): string {
  return showUntrusted(JSON.stringify(value) ?? String(value));
}
