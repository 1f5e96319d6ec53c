import * as z from 'zod';
import { lazily } from '../lazily.js';

/** Claude Code's hook events, in the order they happen in a session. */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

const hookCommandSchema = () =>
  z
    .object({
      type: z.literal('command').describe('"command" (the only hook type Beans runs)'),
      command: z.string().min(1).describe('a shell command'),
      timeout: z.number().positive().describe('a positive number of seconds').optional(),
    })
    .describe('an object {"type": "command", "command": "...", "timeout"?: seconds}');

const matcherGroupSchema = lazily(() =>
  z
    .object({
      matcher: z.string().describe('a regular expression over tool names, "*" or "" for all').optional(),
      hooks: z.array(hookCommandSchema()).describe('a list of {"type": "command", "command": "..."} objects'),
    })
    .describe('an object {"matcher"?: "...", "hooks": [...]}'),
);

/**
 * The `hooks` key of settings and of a plugin's hooks.json: Claude Code's shape, event name -> matcher
 * groups. An object (not a record) so unknown event names are reported as unknown keys.
 */
export const hooksSchema = lazily(() => {
  const eventList = z.array(matcherGroupSchema()).describe('a list of {"matcher", "hooks": [...]} objects');
  return z
    .object(Object.fromEntries(HOOK_EVENTS.map((event) => [event, eventList])) as Record<HookEventName, typeof eventList>)
    .partial()
    .describe(`an object with event names (${HOOK_EVENTS.join(', ')}) as keys`);
});

export type HooksSettings = z.infer<ReturnType<typeof hooksSchema>>;
export type HookMatcherGroup = z.infer<ReturnType<typeof matcherGroupSchema>>;
