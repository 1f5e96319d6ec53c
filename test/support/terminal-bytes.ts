// A model answer full of what drives a terminal, and a check for such bytes in a file Beans wrote
// (issue 53 item 5: what Beans writes stays safe to `cat`).
import { readFileSync } from 'node:fs';

/** OSC 52 (clipboard), OSC 0 (title), CSI 2J (clear screen) in 7- and 8-bit forms, a DCS string, and a CR that overwrites. */
export const HOSTILE = 'Done.\u001b]52;c;cHduZWQ=\u0007\u001b]0;owned\u0007\u009b2J\u001b[2J\u009d0;title\u009c\rHidden \u0090qDCS\u009c end.';

/** Characters a terminal would act on when the file is printed (ESC, BEL, CR, C1 controls), as U+XXXX. */
export function terminalBytes(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g)].map((match) => `U+${match[0].charCodeAt(0).toString(16).padStart(4, '0')}`);
}
