import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { SandboxUnavailableError } from '../errors.js';
import {
  ALLOW_ALL_SETTING,
  policyNotice,
  policySummary,
  refusalMessage,
  socketsToMask,
  unixSocketPolicy,
  type UnixSocketPolicy,
  type UnixSocketSettings,
  type UnixSocketStatus,
} from './unix-sockets.js';

type Manager = (typeof import('@anthropic-ai/sandbox-runtime'))['SandboxManager'];
type FilesystemConfig = SandboxRuntimeConfig['filesystem'];

/** The started runtime and how it fences Unix sockets. */
export interface Started {
  manager: Manager;
  /**
   * How the commands of the sandbox of `workspaceRoot` are fenced from Unix sockets: its allowed
   * sockets resolved from its own workspace (`./dev.sock` is each session's own; resolved from the
   * first sandbox's, a second session's commands reached the first's socket and not their own),
   * the kind of fence (filter, masks, Seatbelt, open, refused) the runtime's, one per process.
   */
  unixSocketsFor(settings: UnixSocketSettings, workspaceRoot: string): SocketFence;
}

export interface SocketFence {
  status: UnixSocketStatus;
  /** For the sandbox's summary: "no Unix socket", "no Unix socket but /x.sock"... */
  reach: string;
  /** Set when every command is refused. */
  refusal?: string;
  /** The per-command configuration (the masks over other sockets), or undefined for the session's own. */
  perCommand(manager: Manager, filesystem: { denyRead: string[]; allowWrite: string[]; denyWrite: string[] }): Partial<SandboxRuntimeConfig> | undefined;
}

export interface StartOptions {
  allowedHosts: string[];
  filesystem: { denyRead: string[]; allowWrite: string[]; denyWrite: string[] };
  sockets: UnixSocketSettings;
  workspaceRoot: string;
}

/** Initialises the runtime (a process-wide singleton) and proves, by trying, that it fences what it says. */
export async function startRuntime(options: StartOptions): Promise<Started> {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  if (!SandboxManager.isSupportedPlatform()) {
    throw new SandboxUnavailableError(
      `--sandbox is not supported on ${process.platform}. Run without --sandbox (and without the setting sandbox.enabled) to run shell commands unsandboxed.`,
    );
  }
  const check = SandboxManager.checkDependencies();
  if (check.errors.length > 0) throw new SandboxUnavailableError(`The shell sandbox cannot start: ${check.errors.join('; ')}. ${installHint()}`);
  const policy = unixSocketPolicy(options.sockets, options.workspaceRoot);
  try {
    await SandboxManager.initialize({
      network: { allowedDomains: options.allowedHosts, deniedDomains: [], ...networkFor(policy) },
      filesystem: options.filesystem,
      ...(policy.kind === 'filter' ? { seccomp: { applyPath: policy.binary } } : {}),
    });
  } catch (error) {
    throw new SandboxUnavailableError(`The shell sandbox cannot start: ${(error as Error).message}. ${installHint()}`);
  }
  const settled = await probe(SandboxManager, policy);
  return {
    manager: SandboxManager,
    unixSocketsFor: (settings, workspaceRoot) => {
      // Masks are made per command: this sandbox's own paths (its settings are the runtime's key, so
      // the kind is the same). Seatbelt took its paths at the start (shell-sandbox.ts keys on them).
      if (settled.kind !== 'masks') return settle(settled);
      const own = unixSocketPolicy(settings, workspaceRoot);
      return settle(own.kind === 'masks' ? { ...settled, allowed: own.allowed } : settled);
    },
  };
}

function networkFor(policy: UnixSocketPolicy): { allowUnixSockets?: string[]; allowAllUnixSockets?: boolean } {
  if (policy.kind === 'seatbelt') return { allowUnixSockets: policy.allowed };
  // Linux without the filter: `masks` fences by path itself, `refuse` runs nothing, `open` was chosen.
  return policy.kind === 'filter' ? {} : { allowAllUnixSockets: true };
}

function settle(policy: UnixSocketPolicy): SocketFence {
  const reach = policySummary(policy);
  const notice = policyNotice(policy);
  const status = (state: UnixSocketStatus['state'], detail: string): UnixSocketStatus => ({ state, detail, ...(notice ? { notice } : {}) });
  switch (policy.kind) {
    case 'filter':
      return { reach, status: status('filter', `Unix sockets: every new one refused by the seccomp filter (${policy.binary})`), perCommand: () => undefined };
    case 'seatbelt':
      return {
        reach,
        status: status(policy.allowed.length > 0 ? 'allowed' : 'filter', `Unix sockets: refused by Seatbelt${allowedList(policy.allowed)}`),
        perCommand: () => undefined,
      };
    case 'masks':
      return {
        reach,
        status: status(
          'allowed',
          `Unix sockets: masked per command${allowedList(policy.allowed)} (sandbox.network.allowUnixSockets; the seccomp filter is off)`,
        ),
        perCommand: (manager, filesystem) => {
          // The runtime's own proxy sockets are bound into the sandbox: they must stay reachable.
          const own = [manager.getLinuxHttpSocketPath(), manager.getLinuxSocksSocketPath()].filter((entry): entry is string => typeof entry === 'string');
          const masks = socketsToMask(policy.allowed, own);
          if (masks.length === 0) return undefined;
          const denyRead: FilesystemConfig['denyRead'] = [...filesystem.denyRead, ...masks.map((entry) => ({ path: entry, literal: true as const }))];
          return { filesystem: { ...filesystem, denyRead } };
        },
      };
    case 'open':
      return {
        reach,
        status: status(
          'open',
          `Unix sockets: not filtered (${ALLOW_ALL_SETTING} is true${policy.unavailable ? `; the filter is unavailable: ${policy.unavailable}` : ''})`,
        ),
        perCommand: () => undefined,
      };
    case 'refuse':
      return {
        reach,
        refusal: refusalMessage(policy.unavailable),
        status: status(
          'refused',
          `Unix sockets: the filter is unavailable (${policy.unavailable}), so --sandbox refuses every shell command until ${ALLOW_ALL_SETTING} is true`,
        ),
        perCommand: () => undefined,
      };
  }
}

const allowedList = (allowed: readonly string[]) => (allowed.length > 0 ? ` except ${allowed.join(', ')}` : '');

// socket(AF_UNIX) under the filter fails with EPERM, which socat (a dependency of the sandbox on
// Linux) reports as "socket(1, 1, 0): Operation not permitted"; without it, connect() to a path that
// does not exist fails with ENOENT instead.
const FILTER_PROBE =
  'out=$(socat -u UNIX-CONNECT:/nonexistent/beans-seccomp-probe.sock OPEN:/dev/null 2>&1); case "$out" in *"Operation not permitted"*) echo refused ;; *) echo "open: $out" ;; esac';

/**
 * bubblewrap can be installed and still fail (user namespaces off in a container), and the runtime
 * skips the Unix socket filter with a debug line when it cannot apply it: try both once. A filter
 * that cannot be applied turns the policy into `refuse` (the user has not allowed running without it,
 * or the policy would be `open`).
 */
async function probe(manager: Manager, policy: UnixSocketPolicy): Promise<UnixSocketPolicy> {
  const { execa } = await import('execa');
  const wrapped = await manager.wrapWithSandbox(policy.kind === 'filter' ? FILTER_PROBE : 'true', '/bin/bash');
  const result = await execa('/bin/bash', ['-c', wrapped], { reject: false, stdin: 'ignore', timeout: 20_000 });
  manager.cleanupAfterCommand();
  const stderr = `${result.stderr}`.trim();
  if (result.exitCode === 0) {
    if (policy.kind !== 'filter' || `${result.stdout}`.includes('refused')) return policy;
    return { kind: 'refuse', unavailable: 'the sandbox runtime did not apply it' };
  }
  // apply-seccomp runs last, inside bubblewrap: its own error means bubblewrap works and the kernel refused the filter.
  const seccompFailure = stderr.split('\n').find((line) => line.startsWith('apply-seccomp:'));
  if (policy.kind === 'filter' && seccompFailure) return { kind: 'refuse', unavailable: `this kernel refused it: ${seccompFailure}` };
  await manager.reset();
  const detail = stderr.split('\n').at(-1) || `exit code ${result.exitCode}`;
  throw new SandboxUnavailableError(
    `The shell sandbox cannot start here (${detail}). ${installHint()} Unprivileged user namespaces must be enabled (in a container, run it with them allowed).`,
  );
}

function installHint(): string {
  if (process.platform === 'darwin') return 'Install ripgrep (brew install ripgrep) and try again.';
  return 'Install bubblewrap, socat and ripgrep (Debian/Ubuntu: sudo apt-get install bubblewrap socat ripgrep; Fedora: sudo dnf install bubblewrap socat ripgrep) and try again.';
}

/**
 * What `beans config` says about Unix sockets under --sandbox, checked without starting a sandbox:
 * the filter's binary is run once around a socat that tries to make a Unix socket.
 */
export async function checkUnixSocketFilter(settings: UnixSocketSettings, workspaceRoot: string): Promise<UnixSocketStatus> {
  let policy = unixSocketPolicy(settings, workspaceRoot);
  if (policy.kind === 'filter') {
    const { execa } = await import('execa');
    const result = await execa(policy.binary, ['socat', '-u', 'UNIX-CONNECT:/nonexistent/beans-seccomp-probe.sock', 'OPEN:/dev/null'], {
      reject: false,
      stdin: 'ignore',
      all: true,
      timeout: 10_000,
    });
    const output = `${result.all ?? ''}`;
    const seccompFailure = output.split('\n').find((line) => line.startsWith('apply-seccomp:'));
    if (seccompFailure) policy = { kind: 'refuse', unavailable: `this kernel refused it: ${seccompFailure}` };
    else if (!output.includes('Operation not permitted')) {
      const status = settle(policy).status;
      return { ...status, detail: `${status.detail}; not checked here (${output.trim().split('\n').at(-1) || 'socat gave no answer'})` };
    }
  }
  return settle(policy).status;
}
