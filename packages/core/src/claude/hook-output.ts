/**
 * What a Claude Code hook's JSON output means, as its documentation defines it: `continue: false`
 * stops everything (`stopReason` is shown), `decision: "block"` with a `reason`, `systemMessage` for
 * the user, and `hookSpecificOutput` with a PreToolUse `permissionDecision` (`allow`, `deny`, `ask`),
 * its reason and an `updatedInput`, or `additionalContext` for the model. The same reading serves
 * command hooks and the Claude Agent SDK's hook callbacks.
 */
export interface HookOutcome {
  /** `continue: false`: stop the run; `stopReason` says why. */
  stop?: { reason: string };
  /** `decision: "block"` (or PreToolUse `deny`): the action is refused with this reason. */
  block?: { reason: string };
  /** PreToolUse `allow` / `ask`. */
  permission?: 'allow' | 'ask';
  /** PreToolUse: the input to run instead, in Claude Code's field names. */
  updatedInput?: Record<string, unknown>;
  /** Context for the model (UserPromptSubmit, SessionStart, PostToolUse). */
  additionalContext?: string;
  /** Shown to the user, never to the model. */
  systemMessage?: string;
  suppressOutput?: boolean;
}

export function interpretHookOutput(output: unknown): HookOutcome {
  if (!output || typeof output !== 'object') return {};
  const o = output as Record<string, unknown>;
  const outcome: HookOutcome = {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  if (o.continue === false) outcome.stop = { reason: text(o.stopReason) ?? 'A hook stopped the run.' };
  if (typeof o.systemMessage === 'string' && o.systemMessage) outcome.systemMessage = o.systemMessage;
  if (o.suppressOutput === true) outcome.suppressOutput = true;
  // The older top-level form: "approve" / "block".
  if (o.decision === 'block') outcome.block = { reason: text(o.reason) ?? 'Blocked by a hook.' };
  else if (o.decision === 'approve') outcome.permission = 'allow';
  const specific = o.hookSpecificOutput;
  if (specific && typeof specific === 'object') {
    const s = specific as Record<string, unknown>;
    const reason = text(s.permissionDecisionReason);
    if (s.permissionDecision === 'deny') outcome.block = { reason: reason ?? 'Denied by a hook.' };
    else if (s.permissionDecision === 'allow') outcome.permission = 'allow';
    else if (s.permissionDecision === 'ask') outcome.permission = 'ask';
    if (s.updatedInput && typeof s.updatedInput === 'object' && !Array.isArray(s.updatedInput))
      outcome.updatedInput = s.updatedInput as Record<string, unknown>;
    if (typeof s.additionalContext === 'string' && s.additionalContext) outcome.additionalContext = s.additionalContext;
  }
  return outcome;
}
