import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Runs the user's editor ($VISUAL, $EDITOR, else vi) on `file` and waits for it. The command runs
 * through sh like git's, so `EDITOR="code --wait"` works. The caller hands it the terminal.
 */
export function runEditor(
  file: string,
  env: NodeJS.ProcessEnv,
): { ok: true } | { error: string; /** It ran and failed (the file may be half-edited). */ exited?: boolean } {
  const editor = env.VISUAL?.trim() || env.EDITOR?.trim() || 'vi';
  const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', env });
  if (run.error) return { error: `Could not start the editor (${run.error.message}). Set $EDITOR to your editor's command.` };
  // sh's "command not found".
  if (run.status === 127) return { error: `The editor command "${editor}" was not found. Set $EDITOR (or $VISUAL) to your editor, e.g. EDITOR=nano.` };
  if (run.status !== 0) return { error: `The editor (${editor}) exited with status ${run.status ?? run.signal}`, exited: true };
  return { ok: true };
}

/**
 * Opens a file in the user's editor and waits for it, handing it the terminal: raw mode is off
 * while it runs, so the editor reads keys as usual. Returns a line to show.
 */
export function openInEditor(file: string, env: NodeJS.ProcessEnv = process.env, stdin: NodeJS.ReadStream = process.stdin): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const raw = stdin.isTTY === true && stdin.isRaw;
  if (raw) stdin.setRawMode(false);
  try {
    const run = runEditor(file, env);
    if ('error' in run) return run.exited ? `${run.error}; ${file} may be unchanged.` : run.error;
    return `Edited ${file}. Beans reads memory files when a session starts: /clear or a new session sees the change.`;
  } finally {
    if (raw) stdin.setRawMode(true);
  }
}
