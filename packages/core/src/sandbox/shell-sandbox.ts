import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Started } from './runtime-start.js';
import { SandboxRefusedError, SandboxUnavailableError } from '../errors.js';
import { isWorkspaceRelativeSocket, type UnixSocketSettings, type UnixSocketStatus } from './unix-sockets.js';
import { RUN_TAG_VARIABLE } from '../tools/process-tree.js';
import { SANDBOX_READ_ONLY } from '../workspace/protected-paths.js';

// Why @anthropic-ai/sandbox-runtime rather than our own bwrap wrapper: it builds the bubblewrap
// command (Linux) or Seatbelt profile (macOS) with the details that make a sandbox hold: read-only
// binds of git hooks/config and shell rc files inside writable folders, a seccomp filter against
// unix sockets, a private network namespace whose only way out is its own HTTP/SOCKS proxy, and a
// proxy that checks each connection against an allow list and refuses names resolving to loopback.
// It is a singleton (one proxy per process), so every sandbox of this process shares one set-up:
// the network and the temp folder. The files are each sandbox's own (the runtime takes them per
// command): a runner hosting several sessions at once fences each one's commands to its own worktree.
//
// Network: a host must be listed to be reachable at all, through the proxy the sandbox points
// HTTP_PROXY/HTTPS_PROXY/ALL_PROXY at. A server on this machine is reached only when its literal
// address and port are listed (`127.0.0.1:8080`) and the client uses the proxy; `localhost` and
// 127.0.0.1 without a proxy are the sandbox's own, empty, loopback.

/** Runs shell commands inside the sandbox. */
export interface ShellSandbox {
  /**
   * The command line that runs `command` inside the sandbox; call `release` once it has ended.
   * Throws SandboxRefusedError when the sandbox cannot keep its promise here (no Unix socket filter).
   */
  wrap(command: string, signal?: AbortSignal): Promise<SandboxedCommand>;
  /** One line for the model and the user: what the sandbox allows. */
  readonly summary: string;
  /** How Unix sockets are fenced, as `beans config` and the start-up notice say it. */
  readonly unixSockets: UnixSocketStatus;
  /** The folder commands get as TMPDIR: made for this sandbox, writable, removed by `dispose`. */
  readonly tempDir: string;
  /** Stops the proxy when the last sandbox of this process is disposed. */
  dispose(): Promise<void>;
}

export interface SandboxedCommand {
  /** A bash command line. */
  command: string;
  release: () => void;
}

export interface ShellSandboxOptions {
  /** Writable, with the temp folder. */
  workspaceRoot: string;
  /** Hosts (`example.com`, `*.example.com`, `127.0.0.1:8080`) commands may connect to; none by default. */
  allowedHosts?: readonly string[];
  /** Where the sandbox's own temp folder is made (default: the system's temp folder). */
  tempDir?: string;
  /** Absolute paths or globs commands may not read (see `sandboxReadDenials`). */
  denyRead?: readonly string[];
  /** Claude Code's `sandbox.network.allowUnixSockets` / `allowAllUnixSockets` (sandbox/unix-sockets.ts). */
  unixSockets?: UnixSocketSettings;
}

/** A deny rule as the permission policy parses it (permissions/rules.ts); the sandbox, below the policy, reads only these two fields. */
interface DenyRule {
  tool: string;
  pattern?: string;
}

/**
 * What `read_file` deny rules (`read_file(.env)`, `read_file(secrets/**)`) keep from the file tools,
 * as paths the sandbox keeps from commands too, so `cat .env` is refused as well. Globs are expanded
 * when each command starts, so a matching file created later in the same command is not covered.
 */
export function sandboxReadDenials(rules: readonly DenyRule[], workspaceRoot: string): string[] {
  return rules
    .filter((rule) => rule.tool === 'read_file' && rule.pattern !== undefined)
    .map((rule) => rule.pattern!.replace(/^\.\//, '').replace(/\/+$/, ''))
    .filter((pattern) => pattern !== '')
    .map((pattern) => (path.isAbsolute(pattern) ? pattern : path.join(workspaceRoot, pattern)));
}

interface Shared {
  key: string;
  /** The commands' TMPDIR, one per sandbox (see makeTempFolder). */
  temp: TempFolder;
  /** The runtime, and the Unix socket policy its probe settled on. */
  ready: Promise<Started>;
  users: number;
  /** Commands wrapped and not yet released: the runtime's per-command clean-up is global. */
  running: number;
}
let shared: Shared | undefined;

/**
 * Starts the OS sandbox for shell commands: writes only in the workspace and the temp folder, no
 * network but the allowed hosts, no Unix socket but the allowed ones. Throws SandboxUnavailableError
 * (saying how to install what is missing) when it cannot start: this platform, bubblewrap or socat
 * missing, or user namespaces off. Where only the Unix socket filter is missing it starts, says so in
 * `unixSockets.notice`, and refuses every command unless the settings allow running without it.
 */
export async function createShellSandbox(options: ShellSandboxOptions): Promise<ShellSandbox> {
  const allowedHosts = [...(options.allowedHosts ?? [])];
  const tempParent = path.resolve(options.tempDir ?? os.tmpdir());
  const denyRead = [...(options.denyRead ?? [])];
  // The runtime finds repositories from the process's folder, which need not be the workspace.
  const gitDir = path.join(options.workspaceRoot, '.git');
  const git = existsSync(gitDir) && statSync(gitDir).isDirectory() ? ['.git/hooks', '.git/config'] : [];
  // Read-only inside the writable workspace: what configures Beans, Claude Code, MCP servers, plugins
  // and git (workspace/protected-paths.ts); sandboxed commands run without asking.
  const denyWrite = [...SANDBOX_READ_ONLY, ...git].map((entry) => path.join(options.workspaceRoot, entry));
  const sockets = options.unixSockets ?? {};
  // What the runtime starts with, once per process; each sandbox's files and socket masks go with
  // each of its commands. Seatbelt (macOS) takes the allowed sockets at the start, so there a
  // relative one (this workspace's) cannot be shared with another workspace's sandbox.
  const relativeSockets = process.platform === 'darwin' && (sockets.allowUnixSockets ?? []).some(isWorkspaceRelativeSocket);
  const key = JSON.stringify({ tempParent, allowedHosts, sockets, ...(relativeSockets ? { workspace: options.workspaceRoot } : {}) });
  if (shared && shared.key !== key) {
    throw new SandboxUnavailableError(
      'A sandbox with another network or temp folder is already running in this process; one process runs one sandbox network configuration.',
    );
  }
  if (!shared) {
    const temp = makeTempFolder(tempParent);
    const filesystem = { denyRead, allowWrite: [options.workspaceRoot, temp.path], denyWrite };
    shared = {
      key,
      temp,
      ready: import('./runtime-start.js').then(({ startRuntime }) => startRuntime({ allowedHosts, filesystem, sockets, workspaceRoot: options.workspaceRoot })),
      users: 0,
      running: 0,
    };
  }
  const current = shared;
  const writable = [options.workspaceRoot, current.temp.path];
  current.users += 1;
  let started: Started;
  try {
    started = await current.ready;
  } catch (error) {
    current.users -= 1;
    if (shared === current) {
      shared = undefined;
      current.temp.remove();
    }
    throw error;
  }
  const { manager } = started;
  const unixSockets = started.unixSocketsFor(sockets, options.workspaceRoot);
  // This sandbox's files, given with each of its commands: another sandbox of the process may have started the runtime.
  const filesystem = { denyRead, allowWrite: writable, denyWrite };
  let disposed = false;
  return {
    tempDir: current.temp.path,
    summary: `Shell commands run in a sandbox: they may write only in ${writable[0]} and their temp folder $TMPDIR (${writable[1]}), ${allowedHosts.length > 0 ? `connect only to ${allowedHosts.join(', ')} (through the proxy in HTTP_PROXY/HTTPS_PROXY)` : 'have no network'}, and reach ${unixSockets.reach}.`,
    unixSockets: unixSockets.status,
    async wrap(command, signal) {
      if (disposed) throw new Error('The shell sandbox was disposed.');
      if (unixSockets.refusal) throw new SandboxRefusedError(unixSockets.refusal);
      const wrapped = await manager.wrapWithSandbox(command, '/bin/bash', unixSockets.perCommand(manager, filesystem) ?? { filesystem }, signal);
      // bubblewrap runs the command in its own PID namespace, which the kernel empties when the
      // command ends: nothing can be left behind to find by the run tag, and the sandbox's own proxy
      // bridges, still exiting at that moment, must not be reported as leftovers.
      current.running += 1;
      let released = false;
      return {
        command: `env -u ${RUN_TAG_VARIABLE} ${wrapped}`,
        release() {
          if (released) return;
          released = true;
          current.running -= 1;
          if (current.running === 0) manager.cleanupAfterCommand();
        },
      };
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (shared === current) shared = undefined;
      current.temp.remove();
      await manager.reset();
    },
  };
}

interface TempFolder {
  path: string;
  /** Removes the folder and what commands left in it, and gives CLAUDE_CODE_TMPDIR back. */
  remove(): void;
}

/**
 * The runtime sets TMPDIR inside the sandbox to CLAUDE_CODE_TMPDIR, else to `/tmp/claude`, and
 * creates neither: on a machine where nothing made `/tmp/claude` every `mktemp` failed, and where
 * something had, every user and session shared it. So Beans makes a private folder (0700, from
 * mkdtemp) for this sandbox and points the runtime at it. The runtime reads the variable from this
 * process's environment each time it wraps a command (after several awaits), so it is set for the
 * sandbox's whole life rather than around each call; the folder is removed on dispose, or at exit
 * when the process ends without disposing.
 */
function makeTempFolder(parent: string): TempFolder {
  mkdirSync(parent, { recursive: true });
  const folder = mkdtempSync(path.join(parent, 'beans-sandbox-tmp-'));
  const previous = process.env.CLAUDE_CODE_TMPDIR;
  process.env.CLAUDE_CODE_TMPDIR = folder;
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.removeListener('exit', remove);
    if (process.env.CLAUDE_CODE_TMPDIR === folder) {
      if (previous === undefined) delete process.env.CLAUDE_CODE_TMPDIR;
      else process.env.CLAUDE_CODE_TMPDIR = previous;
    }
    rmSync(folder, { recursive: true, force: true });
  };
  process.once('exit', remove);
  return { path: folder, remove };
}

/** How --sandbox would fence Unix sockets with these settings, checked on this machine (`beans config`). */
export async function describeSandboxUnixSockets(settings: UnixSocketSettings, workspaceRoot: string): Promise<UnixSocketStatus> {
  const { checkUnixSocketFilter } = await import('./runtime-start.js');
  return checkUnixSocketFilter(settings, workspaceRoot);
}
