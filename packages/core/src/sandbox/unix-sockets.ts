import { accessSync, constants, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Unix sockets are the sandbox's side door: $SSH_AUTH_SOCK is the user's SSH keys, /var/run/docker.sock
// root on the machine, and a sandboxed command could reach both (the network namespace fences IP,
// not the filesystem's sockets). On Linux the sandbox runtime refuses socket(AF_UNIX) with a seccomp
// filter applied by its `apply-seccomp` binary, which it looks for beside its own files. Bundled into
// Beans' CLI the runtime's files are Beans' chunks, so scripts/bundle.mjs copies the binaries beside
// them (vendor/seccomp/<arch>/apply-seccomp), and Beans finds the binary itself and hands the runtime
// its path: the runtime would otherwise skip the filter with a debug line, which is what it did.
// macOS's Seatbelt profile refuses sockets by path itself.

/** How the sandbox treats Unix sockets, decided once per sandbox. */
export type UnixSocketPolicy =
  /** Linux: the seccomp filter refuses every new Unix socket (the default). */
  | { kind: 'filter'; binary: string }
  /** Linux, `allowUnixSockets` set: no filter, and every other socket bound on this machine is masked per command. */
  | { kind: 'masks'; allowed: string[] }
  /** macOS: Seatbelt refuses sockets except the allowed ones. */
  | { kind: 'seatbelt'; allowed: string[] }
  /** `allowAllUnixSockets`: the user chose no filter. `unavailable` says why there would have been none anyway. */
  | { kind: 'open'; unavailable?: string }
  /** The filter cannot be applied and the user did not allow running without it: commands are refused. */
  | { kind: 'refuse'; unavailable: string };

export interface UnixSocketSettings {
  /** Socket paths (absolute, `~/`, or relative to the workspace) commands may connect to. */
  allowUnixSockets?: readonly string[];
  /** No filtering at all: the user's explicit choice, also what lets commands run where the filter cannot be applied. */
  allowAllUnixSockets?: boolean;
}

/** The setting that lets commands run without the filter, as users write it. */
export const ALLOW_ALL_SETTING = 'sandbox.network.allowAllUnixSockets';

/** Where this machine's apply-seccomp binary is, or why there is none. */
function findSeccompBinary(): { path: string } | { missing: string } {
  const arch = process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined;
  if (!arch) return { missing: `the seccomp filter exists for x64 and arm64 only, and this machine is ${process.arch}` };
  const relative = path.join('vendor', 'seccomp', arch, 'apply-seccomp');
  const candidates = [
    // The bundle (a repository's build, or the npm package): beside the chunk this code is in.
    fileURLToPath(new URL(`./${relative.split(path.sep).join('/')}`, import.meta.url)),
  ];
  try {
    // Unbundled (@beans/core as a library): the runtime package's own copy.
    const entry = createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime');
    candidates.push(path.join(path.dirname(entry), '..', relative));
  } catch {
    // Not resolvable from here: only the bundled copy counts.
  }
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return { path: candidate };
    } catch {
      // Try the next place.
    }
  }
  return { missing: `its binary (${relative}) is not where Beans is installed (looked in ${candidates.map((c) => path.dirname(c)).join(' and ')})` };
}

/** The policy for these settings on this machine (the filter's live check comes later, in the sandbox's probe). */
export function unixSocketPolicy(settings: UnixSocketSettings, workspaceRoot: string): UnixSocketPolicy {
  const allowed = (settings.allowUnixSockets ?? []).map((entry) => resolveSocketPath(entry, workspaceRoot));
  if (process.platform === 'darwin') return settings.allowAllUnixSockets ? { kind: 'open' } : { kind: 'seatbelt', allowed };
  const binary = findSeccompBinary();
  if (settings.allowAllUnixSockets) return { kind: 'open', unavailable: 'missing' in binary ? binary.missing : undefined };
  if (allowed.length > 0) return { kind: 'masks', allowed };
  return 'missing' in binary ? { kind: 'refuse', unavailable: binary.missing } : { kind: 'filter', binary: binary.path };
}

const homeExpanded = (entry: string) => (entry === '~' || entry.startsWith('~/') ? path.join(os.homedir(), entry.slice(1)) : entry);

/** An allowed socket named from the workspace (`./dev.sock`): each workspace's own. */
export function isWorkspaceRelativeSocket(entry: string): boolean {
  return !path.isAbsolute(homeExpanded(entry));
}

function resolveSocketPath(entry: string, workspaceRoot: string): string {
  const absolute = path.resolve(workspaceRoot, homeExpanded(entry));
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The refusal every command gets under the `refuse` policy. */
export function refusalMessage(unavailable: string): string {
  return (
    `The sandbox cannot refuse Unix sockets here (${unavailable}), so Beans runs no shell command: one could reach the SSH agent or the Docker socket. ` +
    `To run commands without that filter, set ${ALLOW_ALL_SETTING} to true in your settings.`
  );
}

/** The one line said at start when the filter is not there, or undefined when it is (or was turned off knowingly). */
export function policyNotice(policy: UnixSocketPolicy): string | undefined {
  if (policy.kind === 'refuse')
    return `--sandbox: the Unix socket filter cannot be applied (${policy.unavailable}); shell commands are refused (set ${ALLOW_ALL_SETTING} to run them without it).`;
  if (policy.kind === 'open' && policy.unavailable)
    return `--sandbox: the Unix socket filter cannot be applied (${policy.unavailable}); commands run without it, as ${ALLOW_ALL_SETTING} allows.`;
  return undefined;
}

/** What the sandbox's summary says about sockets. */
export function policySummary(policy: UnixSocketPolicy): string {
  switch (policy.kind) {
    case 'filter':
      return 'no Unix socket';
    case 'masks':
    case 'seatbelt':
      return policy.allowed.length > 0 ? `no Unix socket but ${policy.allowed.join(', ')}` : 'no Unix socket';
    case 'open':
      return 'any Unix socket';
    case 'refuse':
      return 'no command at all (the Unix socket filter is unavailable)';
  }
}

/**
 * Linux with `allowUnixSockets`: seccomp cannot tell one socket path from another, so the filter is
 * off and every other socket bound on this machine is masked instead (a read-only /dev/null over it,
 * which a connect() finds refusing). The kernel lists the bound sockets of Beans' network namespace
 * in /proc/net/unix; a socket bound after the command started, by a relative path, or in another
 * network namespace is not listed there and stays reachable (docs/permissions.md, Sandbox).
 */
export function socketsToMask(allowed: readonly string[], keep: readonly string[]): string[] {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const open = new Set([...allowed, ...keep]);
  const masks = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line after seven fields.
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const named = fields.slice(7).join(' ');
    if (!named.startsWith('/')) continue;
    let real: string;
    try {
      if (!lstatSync(named).isSocket()) continue;
      real = realpathSync(named);
    } catch {
      // Gone, or behind a folder this user cannot search: unreachable to commands too.
      continue;
    }
    if ([...open].some((entry) => real === entry || real.startsWith(`${entry}/`))) continue;
    masks.add(real);
  }
  return [...masks];
}

export interface UnixSocketStatus {
  /** `filter`: every socket refused; `allowed`: all but the allowed ones; `open`: none refused; `refused`: commands refused. */
  state: 'filter' | 'allowed' | 'open' | 'refused';
  /** One sentence for `beans config` and the start-up notice. */
  detail: string;
  /** Said once at start when the filter is missing, else undefined. */
  notice?: string;
}
