// What reaches a terminal from the model or a repository must not drive it: OSC 52 writes the
// clipboard, OSC 0/2 set the window title, CSI 2J clears the screen, a lone CR overwrites a line to
// hide what came before it. The chat strips these already (ui/styled.ts); the one-shot answer on a
// terminal and Beans' own messages on stderr go through here (issue 43 item 8).

// ESC sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (to BEL or ST), two-byte escapes,
// and the same introduced by their 8-bit C1 forms.
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|[ -/]*[0-~])|\u009b[0-?]*[ -/]*[@-~]|[\u0090\u0098\u009d-\u009f][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/g;
// C0 controls but newline and tab, DEL, and the C1 controls (8-bit CSI and OSC among them).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text as the chat would show it: escape sequences and control characters removed, CRLF kept as LF. */
export function stripTerminalControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** Control characters shown as `\xNN`, so a repository-chosen name in a message is visible and inert. */
function escapeTerminalControls(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Every message Beans writes to stderr starts with `beans: `; those writes show control characters
 * escaped, whatever part of the message a repository or a model chose (a settings key, a server
 * name, an error text). Other stderr writes (a workflow's progress line) pass as they are.
 */
export function guardStderrMessages(stream: NodeJS.WriteStream = process.stderr): void {
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = (chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith('beans: ')) {
      // The message's own final newline stays a newline.
      const body = chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk;
      chunk = escapeTerminalControls(body.replace(/\r\n/g, '\n')) + (body === chunk ? '' : '\n');
    }
    return write(chunk, ...rest);
  };
}
