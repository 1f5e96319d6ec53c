import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Opens a file in the user's editor ($VISUAL, $EDITOR, else vi) and waits for it, handing it the
 * terminal: raw mode is off while it runs, so the editor reads keys as usual. The editor command
 * runs through sh like git's, so `EDITOR="code --wait"` works. Returns a line to show.
 */
export function openInEditor(file: string, env: NodeJS.ProcessEnv = process.env, stdin: NodeJS.ReadStream = process.stdin): string {
  const editor = env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
  mkdirSync(path.dirname(file), { recursive: true });
  const raw = stdin.isTTY === true && stdin.isRaw;
  if (raw) stdin.setRawMode(false);
  try {
    const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', env });
    if (run.error) return `Could not start the editor (${run.error.message}). Set $EDITOR to your editor's command.`;
    // sh's "command not found".
    if (run.status === 127) return `The editor command "${editor}" was not found. Set $EDITOR (or $VISUAL) to your editor, e.g. EDITOR=nano.`;
    if (run.status !== 0) return `The editor (${editor}) exited with status ${run.status ?? run.signal}; ${file} may be unchanged.`;
    return `Edited ${file}. Beans reads memory files when a session starts: /clear or a new session sees the change.`;
  } finally {
    if (raw) stdin.setRawMode(true);
  }
}
