import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { ConfigError, UsageError, createAgentSession, createShellSandbox, stateDir, type AgentSession } from '@beans/core';
import { VERSION } from '../version.js';
import { clientFor, cliSessionOptions, loadBase, providerIdOf, type Base } from '../bootstrap.js';
import { configFlags, type CliOptions } from '../options.js';
import { onStopSignals, type StopSignal } from '../signals.js';

export interface RunnerFlags {
  id?: string;
  concurrency?: string;
  workdir?: string;
}

const DEFAULTS = { concurrency: 1, maxSessionsPerProvider: 8, recoveryAfterMs: 5000, drainGraceMs: 60_000 };

/** The database the background sessions live in, when one is configured (BEANS_DATABASE_URL or workflows.databaseUrl). */
export function databaseUrlOf(base: Base): string | undefined {
  return base.config.values.workflows.databaseUrl || undefined;
}

/**
 * `beans runner --id NAME [--concurrency N] [--workdir DIR]`: takes background sessions from the
 * database and runs each as a session of core, with this machine's keys and settings, until SIGTERM
 * or Ctrl+C, which drains: no new session, those running get `runners.drainGraceMs` to finish, the
 * rest go back on the queue for other runners. A second signal stops at once.
 */
export async function runRunner(options: CliOptions, flags: RunnerFlags): Promise<number> {
  const base = await loadBase(options);
  const databaseUrl = databaseUrlOf(base);
  if (!databaseUrl)
    throw new ConfigError(
      'beans runner needs a PostgreSQL database: set BEANS_DATABASE_URL (or workflows.databaseUrl) to a URL such as postgresql://user:password@host:5432/beans.',
    );
  const settings = base.config.values.runners;
  const id = flags.id ?? `${hostname()}-${process.pid}`;
  if (!/^[\w.-]{1,64}$/.test(id)) throw new UsageError(`--id takes letters, digits, ".", "_" and "-" (at most 64), not "${id}".`);
  const concurrency = flags.concurrency === undefined ? (settings.concurrency ?? DEFAULTS.concurrency) : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency takes a positive whole number, not "${flags.concurrency}".`);
  const workdir = path.resolve(flags.workdir ?? settings.workdir ?? path.join(stateDir(base.env), 'runners', id));
  mkdirSync(workdir, { recursive: true, mode: 0o700 });

  // The runner's own provider and model: what a session gets unless the runner allows it more. A
  // missing key fails here, before any session is taken.
  const provider = providerIdOf(base);
  await clientFor(base, provider);
  const model = base.config.values.model;
  const sandbox = settings.sandbox ?? true;
  if (sandbox) await checkSandbox(workdir);
  const runners = await import('@beans/core/runners');
  const policy = {
    provider,
    ...(model ? { model } : {}),
    permissionMode: base.config.values.permissions.mode,
    providers: settings.providers ?? [provider],
    models: settings.models ?? [],
    permissionModes: settings.permissionModes ?? runners.DEFAULT_SESSION_MODES,
    ...(settings.maxTurns ? { maxTurns: settings.maxTurns } : {}),
  };
  const log = (line: string) => process.stderr.write(`beans: ${line}\n`);
  const openAgent = async (spec: import('@beans/core/runners').AgentSpec): Promise<AgentSession> => {
    const flags: Record<string, unknown> = { ...configFlags(options), provider: spec.admitted.provider, 'permissions.mode': spec.admitted.permissionMode };
    if (spec.admitted.model) flags.model = spec.admitted.model;
    else delete flags.model;
    if (spec.admitted.maxTurns) flags.maxTurns = spec.admitted.maxTurns;
    flags['sandbox.enabled'] = sandbox;
    const agent = await createAgentSession({
      ...cliSessionOptions(options, 'chat'),
      cwd: spec.cwd,
      flags,
      sessionId: spec.sessionId,
      persistSession: false,
      resume: undefined,
      continue: false,
      interactive: true,
      // A runner's session ends with its prompt: no loop or cron task of the model's would ever fire.
      hostsSchedules: false,
      mcpFromLastRun: false,
      trustWorkspace: spec.trustWorkspace,
      // An untrusted worktree's own settings files do not apply at all: not even the harmless keys
      // (a model), which would let a queued session choose past the runner's policy.
      ...(spec.trustWorkspace ? {} : { settingSources: ['user'] as const }),
      durableSteps: spec.durableSteps,
    });
    for (const warning of agent.warnings) log(`session ${spec.sessionId}: ${warning}`);
    return agent;
  };
  const runner = await runners.startRunner(
    {
      databaseUrl,
      id,
      concurrency,
      maxSessionsPerProvider: settings.maxSessionsPerProvider ?? DEFAULTS.maxSessionsPerProvider,
      workdir,
      policy,
      trustWorktrees: settings.trustWorktrees ?? false,
      recoveryAfterMs: settings.recoveryAfterMs ?? DEFAULTS.recoveryAfterMs,
      identity: gitIdentity(workdir, id),
      openAgent,
      env: base.env,
      log,
    },
    VERSION,
  );
  log(`runner ${id} taking background sessions from ${runner.where} (${concurrency} at once, work folder ${workdir}); SIGTERM or Ctrl+C drains and stops.`);
  // The handlers stay until the drain is done: a second signal exits at once (onStopSignals), and with
  // none left, the process-tree sweep (installed once a command was spawned) would re-raise the first
  // signal and end the drain as it starts.
  let removeHandlers = () => {};
  const stopped = await new Promise<StopSignal>((resolve) => (removeHandlers = onStopSignals(resolve)));
  const graceMs = settings.drainGraceMs ?? DEFAULTS.drainGraceMs;
  log(
    `runner ${id} draining (${stopped}): no new sessions; those running have ${Math.round(graceMs / 1000)} s to finish, then go to other runners. A second signal stops at once.`,
  );
  const handedOver = await runner.drain(graceMs);
  removeHandlers();
  log(`runner ${id} stopped${handedOver ? ` (${handedOver === 1 ? '1 session goes' : `${handedOver} sessions go`} on with other runners)` : ''}.`);
  return 0;
}

/** Sessions' commands run in the sandbox unless runners.sandbox is false: a runner that cannot sandbox says so at once. */
async function checkSandbox(workdir: string): Promise<void> {
  try {
    const sandbox = await createShellSandbox({ workspaceRoot: workdir });
    await sandbox.dispose();
  } catch (error) {
    throw new ConfigError(
      `${(error as Error).message} A runner runs its sessions' commands in the sandbox, so one session cannot write into another's worktree; set runners.sandbox to false to run them unsandboxed on this machine.`,
    );
  }
}

/** Who the runner's commits are from: git's configured identity, else the runner's name. */
function gitIdentity(cwd: string, id: string): { name: string; email: string } {
  const read = (key: string) => {
    try {
      return execFileSync('git', ['config', key], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  return { name: read('user.name') || `Beans runner ${id}`, email: read('user.email') || `beans-runner@${hostname()}` };
}
