import type { CommandRun } from './run-command.js';
import { HOOK_EVENTS, type HookEventName } from './schema.js';
import { DEFAULT_HOOK_TIMEOUT_SECONDS, type HookCallback, type HookCommand } from './types.js';

/**
 * A program's hooks in the Claude Agent SDK's shape (`options.hooks`): per event, matcher groups of
 * callback functions. They run with the settings' and plugins' command hooks, for every event Beans
 * has, and their answers are read as a command hook's JSON output.
 */
export type ProgramHooks = Partial<Record<string, readonly { matcher?: string | null; hooks: readonly HookCallback[]; timeout?: number }[]>>;

/** The program's callbacks as hook entries, and the events it registered that Beans has not (to say once). */
export function programHookCommands(hooks: ProgramHooks | undefined): { commands: HookCommand[]; unsupported: string[] } {
  const commands: HookCommand[] = [];
  const unsupported: string[] = [];
  let count = 0;
  for (const [event, groups] of Object.entries(hooks ?? {})) {
    if (!groups?.some((group) => group.hooks.length > 0)) continue;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      unsupported.push(event);
      continue;
    }
    for (const group of groups) {
      for (const callback of group.hooks) {
        commands.push({
          event: event as HookEventName,
          ...(group.matcher ? { matcher: group.matcher } : {}),
          // Unique, so the runner's "identical commands run once" never merges two callbacks.
          command: `program hook ${(count += 1)}`,
          timeout: group.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
          source: { kind: 'program' },
          callback,
        });
      }
    }
  }
  return { commands, unsupported };
}

/**
 * Calls a program's hook as a command would run: within its timeout and the signal, never throwing;
 * the answer becomes the run's stdout (JSON), a failure its stderr with exit code 1.
 */
export async function runHookCallback(
  callback: HookCallback,
  input: Record<string, unknown>,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CommandRun> {
  const started = performance.now();
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timeout');
    }, options.timeoutMs);
  });
  const toolUseId = typeof input.tool_use_id === 'string' ? input.tool_use_id : undefined;
  try {
    const answer = await Promise.race([callback(input, toolUseId, { signal: controller.signal }), timedOut]);
    const durationMs = performance.now() - started;
    if (answer === 'timeout') return { exitCode: null, stdout: '', stderr: '', timedOut: true, durationMs };
    if (options.signal?.aborted) return { exitCode: null, stdout: '', stderr: '', timedOut: false, durationMs };
    return { exitCode: 0, stdout: answer && typeof answer === 'object' ? JSON.stringify(answer) : '', stderr: '', timedOut: false, durationMs };
  } catch (error) {
    const durationMs = performance.now() - started;
    if (options.signal?.aborted) return { exitCode: null, stdout: '', stderr: '', timedOut: false, durationMs };
    return { exitCode: 1, stdout: '', stderr: error instanceof Error ? error.message : String(error), timedOut: false, durationMs };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
}
