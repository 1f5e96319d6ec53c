// What reaches a terminal from the model or a repository must not drive it: OSC 52 writes the
// clipboard, OSC 0/2 set the window title, CSI 2J clears the screen, a lone CR overwrites a line to
// hide what came before it. The chat strips these from what it shows (cli ui/styled.ts), one-shot
// `-o text` on a terminal and Beans' own stderr messages too (cli output/terminal-safe.ts), and so
// does every file Beans writes from model text (issue 53 item 5): an export, a memory note, a
// generated profile, and the JSON lines of sessions and runs, so that `cat` on any of them is safe.

// ESC sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (to BEL or ST), two-byte escapes,
// and the same introduced by their 8-bit C1 forms.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|[ -/]*[0-~])|\u009b[0-?]*[ -/]*[@-~]|[\u0090\u0098\u009d-\u009f][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/g;
// C0 controls but newline and tab, DEL, and the C1 controls (8-bit CSI and OSC among them).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// What JSON.stringify leaves as it is and a terminal may still act on: DEL and the C1 controls.
const RAW_IN_JSON = /[\u007f-\u009f]/g;

/** Text as the chat would show it: escape sequences and control characters removed, CRLF kept as LF. */
export function stripTerminalControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** Control characters shown as `\xNN`, so a repository-chosen name in a message is visible and inert. */
export function escapeTerminalControls(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * JSON text (from JSON.stringify) with DEL and the C1 controls written as `\u00XX` escapes: the same
 * value when parsed, and nothing a terminal acts on when the file is printed (JSON escapes C0 itself).
 */
export function terminalSafeJson(json: string): string {
  RAW_IN_JSON.lastIndex = 0;
  return RAW_IN_JSON.test(json) ? json.replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : json;
}
