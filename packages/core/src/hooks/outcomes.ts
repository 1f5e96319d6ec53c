import type { CommandRun } from './run-command.js';
import type { HookCommand } from './types.js';

/** What every event's hooks can say, whatever the event. */
export interface HookOutcomeBase {
  /** For the user, never the model: `systemMessage`s, failed hooks, timeouts. */
  userMessages: string[];
  /** `continue: false`: the whole run stops; `reason` (the hook's `stopReason`) is shown to the user. */
  stop?: { reason: string };
  /** Every hook that ran, for logs and tests. */
  runs: { hook: HookCommand; run: CommandRun }[];
}

/**
 * PreToolUse, already decided: `deny` refuses the call in every permission mode (the reason goes to
 * the model); `allow` skips the permission prompt but never overrides a deny rule; `ask` forces the
 * prompt. Deny beats ask beats allow across hooks of one call.
 */
export interface PreToolUseOutcome extends HookOutcomeBase {
  decision?: 'deny' | 'allow' | 'ask';
  /** Why, from `permissionDecisionReason`, `reason` or an exit-2 hook's stderr. */
  reason?: string;
  /** A hook's `updatedInput`, translated to the Beans tool's parameters. */
  updatedInput?: Record<string, unknown>;
}

export interface PostToolUseOutcome extends HookOutcomeBase {
  /** For the model, next to the tool result: `decision: "block"` reasons and exit-2 stderr. */
  feedback?: string;
  /** `additionalContext` for the model. */
  additionalContext?: string;
}

export interface UserPromptSubmitOutcome extends HookOutcomeBase {
  /** The prompt is dropped; the reason is for the user (the model never sees the prompt). */
  blocked?: { reason: string };
  /** Plain stdout of exit-0 hooks and `additionalContext`: added for the model with the prompt. */
  context?: string;
}

export interface StopOutcome extends HookOutcomeBase {
  /** A hook refused the stop: the agent goes on with this as its next instruction. */
  continueWith?: string;
}

export interface SessionStartOutcome extends HookOutcomeBase {
  /** Plain stdout of exit-0 hooks and `additionalContext`: context for the model. */
  context?: string;
}

/** SessionEnd, PreCompact and Notification: hooks can only tell the user something. */
export type NoticeOutcome = HookOutcomeBase;
