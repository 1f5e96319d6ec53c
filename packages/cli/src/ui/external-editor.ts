import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runEditor } from '../open-editor.js';
import { withTerminalHandedOver, type Terminal } from './terminal-handover.js';

/**
 * Ctrl+G: the draft goes to a temporary `prompt.md`, the user's editor ($VISUAL, $EDITOR, else vi)
 * gets the terminal, and what the file holds when it exits becomes the draft (one final newline,
 * which editors add, dropped). The editor runs synchronously on the alternate screen: Ink reads no
 * keys meanwhile, and the chat's screen comes back as it was.
 */
export function editDraftExternally(draft: string, terminal: Terminal, env: NodeJS.ProcessEnv = process.env): { text: string } | { error: string } {
  if (!terminal.stdout.isTTY) return { error: 'Ctrl+G needs a terminal to hand to the editor.' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-draft-'));
  const file = path.join(dir, 'prompt.md');
  try {
    writeFileSync(file, draft, { mode: 0o600 });
    const run = withTerminalHandedOver(terminal, () => runEditor(file, env), { alternateScreen: true });
    if ('error' in run) return { error: `${run.error}${run.exited ? '.' : ''} The draft is unchanged.` };
    return { text: readFileSync(file, 'utf8').replace(/\r?\n$/, '') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
