import { existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { RUN_TAG_VARIABLE, newRunTag, sweepAtExit, trackProcessGroup } from './process-tree.js';
import { toolEnvironment } from './tool-env.js';
import type { Workspace } from '../workspace/workspace.js';

// Commands run without a terminal; these keep tools from paging, prompting or colouring.
const QUIET_ENV = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', TERM: 'dumb' };

const shellPath = existsSync('/bin/bash') ? '/bin/bash' : true;

/** Where a command runs and with what environment (a ToolContext has both). */
export interface ShellPlace {
  workspace: Pick<Workspace, 'root'>;
  /** The tools' environment; process.env without the provider keys when absent. */
  env?: NodeJS.ProcessEnv;
}

/** A command line started in its own process group, its output merged on `subprocess.all`. */
export interface ShellProcess {
  /** The shell (execa's subprocess; it never rejects); stdout and stderr merged on `all`. */
  subprocess: ChildProcess & { all: Readable };
  pid: number;
  /** The run tag every process the command starts carries (process-tree.ts). */
  tag: string;
}

/**
 * Starts a command the way every shell call of the model's does (foreground or background): bash in
 * the workspace root, no stdin, the tools' environment (provider keys removed), its own process
 * group and a run tag, so stopping it reaches everything it started. Returns the failure's message
 * when the shell could not start.
 */
export async function startShellProcess(
  command: string,
  ctx: ShellPlace,
  options: {
    signal?: AbortSignal;
    tag?: string;
    /** False: Beans' own exit does not stop it (`--keep-tasks`). */
    track?: boolean;
    /** The program that runs `bash -c command` instead of the shell itself (a PID namespace's nsenter). */
    wrap?: (command: string, cwd: string) => [string, string[]];
  } = {},
): Promise<ShellProcess | { error: string }> {
  // Loaded on first use: execa costs ~50 ms to import, which `beans -p` should not pay up front.
  const { execa } = await import('execa');
  const { signal, tag = newRunTag(), track = true } = options;
  signal?.throwIfAborted(); // an Esc during the first import must not let the command start
  const [file, args] = options.wrap ? options.wrap(command, ctx.workspace.root) : [command, []];
  if (track) sweepAtExit();
  const subprocess = execa(file, args, {
    shell: options.wrap ? false : shellPath,
    cwd: ctx.workspace.root,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    // Its own process group, so a timeout, abort or kill can stop everything the command started.
    detached: true,
    // Only the environment Beans gives tools (no provider keys), plus a tag that finds every
    // process this command starts, even one that leaves the group (setsid, nohup).
    extendEnv: false,
    env: { ...(ctx.env ?? toolEnvironment(process.env)), ...QUIET_ENV, [RUN_TAG_VARIABLE]: tag },
  });
  // Settles with reject: false; caught anyway because streams are destroyed by callers.
  subprocess.catch(() => undefined);
  const pid = subprocess.pid;
  if (pid === undefined) return { error: (await subprocess).message ?? 'unknown error' };
  if (track) trackProcessGroup(pid);
  // execa's subprocess is a ChildProcess whose `all` exists because `all: true` was asked for.
  return { subprocess: subprocess as unknown as ChildProcess & { all: Readable }, pid, tag };
}
