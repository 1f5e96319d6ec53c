import { HOOK_EVENTS, type ProgramHooks } from '../hooks/index.js';
import type { ControlChannel } from './control-channel.js';

/** The hooks an SDK program registered in `initialize`: per event, matchers with callback ids. */
export type SdkHookRegistrations = Record<string, { matcher?: string | null; hookCallbackIds?: string[]; timeout?: number }[] | undefined>;

/**
 * The program's hook callbacks, registered by id in `initialize`, as the session's program hooks: each
 * call is a `hook_callback` control request carrying Claude Code's payload (tool names and fields in
 * its vocabulary), and the program's answer is read as a Claude Code hook result. Every event Beans
 * has runs them (hooks/program-hooks.ts); the session names the ones it has not.
 */
export function sdkProgramHooks(registrations: SdkHookRegistrations, channel: ControlChannel): { hooks: ProgramHooks; notRun: string[] } {
  const hooks: ProgramHooks = {};
  const notRun = sdkHooksNotRun(registrations);
  for (const [event, groups] of Object.entries(registrations)) {
    if (!groups?.some((group) => group.hookCallbackIds?.length) || notRun.includes(event)) continue;
    hooks[event] = groups.map((group) => ({
      matcher: group.matcher ?? null,
      ...(typeof group.timeout === 'number' ? { timeout: group.timeout } : {}),
      hooks: (group.hookCallbackIds ?? []).map(
        (id) => (input: Record<string, unknown>, toolUseId: string | undefined, options: { signal: AbortSignal }) =>
          // After the program's input ended no answer can come: the callback is skipped, not failed.
          channel.closed
            ? Promise.resolve({})
            : channel.request({ subtype: 'hook_callback', callback_id: id, input, ...(toolUseId ? { tool_use_id: toolUseId } : {}) }, options.signal),
      ),
    }));
  }
  return { hooks, notRun };
}

/**
 * The registered events whose callbacks Beans cannot run: events it does not have, and SessionEnd,
 * which comes after the SDK has closed Beans' input, when no answer could arrive.
 */
export function sdkHooksNotRun(registrations: SdkHookRegistrations): string[] {
  return Object.entries(registrations)
    .filter(
      ([event, groups]) =>
        groups?.some((group) => group.hookCallbackIds?.length) && (!(HOOK_EVENTS as readonly string[]).includes(event) || event === 'SessionEnd'),
    )
    .map(([event]) => event);
}
