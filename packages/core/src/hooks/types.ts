import type { HookEventName } from './schema.js';

/** Where a hook was configured. */
export type HookSource =
  | { kind: 'user' | 'project' | 'local'; file: string }
  | { kind: 'plugin'; plugin: string; root: string; file: string }
  /** A function of the program that embeds Beans (the Claude Agent SDK's hook callbacks, `hooks` of query()). */
  | { kind: 'program' };

/** A program's hook function, as the Claude Agent SDK's: the event's payload in, a hook's JSON output back. */
export type HookCallback = (input: Record<string, unknown>, toolUseId: string | undefined, options: { signal: AbortSignal }) => Promise<unknown>;

/** One command hook, ready to run. */
export interface HookCommand {
  event: HookEventName;
  /** Undefined, `""` or `*` match every tool; only tool events use it. */
  matcher?: string;
  /** The command as it will run (`${CLAUDE_PLUGIN_ROOT}` already substituted); a program's callback: its label. */
  command: string;
  /** Set for a program's hook: called instead of running `command`, its answer read as the command's JSON output. */
  callback?: HookCallback;
  /** Seconds. */
  timeout: number;
  source: HookSource;
}

export interface HookProblem {
  path: string;
  message: string;
}

export interface HookSet {
  hooks: HookCommand[];
  /** Files that could not be read or had the wrong shape; their hooks are left out. */
  problems: HookProblem[];
  /** Project hooks left out because the workspace is not trusted, for the user to be told. */
  untrusted: HookCommand[];
}

/** The default per-hook timeout, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

export function describeHookSource(source: HookSource): string {
  if (source.kind === 'program') return 'the program';
  return source.kind === 'plugin' ? `plugin ${source.plugin}` : `${source.kind} settings`;
}
