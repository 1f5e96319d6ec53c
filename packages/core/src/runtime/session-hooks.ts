import { composeAfterToolCall, composeBeforeToolCall, type AfterToolCall, type BeforeToolCall } from '../agent/tool-hooks.js';
import { guardrailToolHook } from '../guardrails/index.js';
import { createHookRunner, hookToolCallbacks, loadWorkspaceHooks, type HookRunner, type HookSet } from '../hooks/index.js';
import type { Live } from './live.js';
import { sdkPermissionMode } from './permission-mode.js';
import type { DeclarationsInput } from './repository-declarations.js';
import type { AgentSessionOptions } from './session-options.js';
import type { SessionStorage } from './session-storage.js';
import type { SettledAgent } from './settle-agent.js';
import type { WorkspaceTrust } from './workspace-trust.js';

/** A part that wraps tool execution at the hooks' seam: before an allowed call runs, and after it. */
export interface ToolSeam {
  beforeToolCall: BeforeToolCall;
  afterToolCall: AfterToolCall;
}

export interface SessionHooksInput {
  /** Where hooks are declared: the user's and the workspace's settings, plugins (the workspace is their cwd). */
  sources: DeclarationsInput;
  /** The repository's own hooks run only when trusted, and not one added since (workspace-trust.ts). */
  trust: Pick<WorkspaceTrust, 'trusted' | 'skipHook'>;
  /** The environment hooks run with: without the provider keys, `hooks.env.passThrough` kept. */
  hookEnv: NodeJS.ProcessEnv;
  options: Pick<AgentSessionOptions, 'onHookMessage' | 'afterToolCall'>;
  /** Their redaction comes last after every call. */
  agent: Pick<SettledAgent, 'guardrails'>;
  storage: Pick<SessionStorage, 'transcriptPathOf'>;
  live: Live;
  /** Parts that wrap tool execution at this one seam (checkpoints, background shells, language servers); absent ones are undefined. */
  seams: readonly (ToolSeam | undefined)[];
}

export interface SessionHooks {
  /** The configured command hooks (settings, plugins). */
  set: HookSet;
  runner: HookRunner;
  /** PreToolUse hooks, for the permission chain. */
  beforeToolCall?: BeforeToolCall;
  /** The caller's after-call hook, PostToolUse hooks, then guardrail redaction. */
  afterToolCall?: AfterToolCall;
  /** Cross-cutting parts' before-hooks (checkpoints), which the permission chain runs once a call is allowed. */
  afterPermission?: BeforeToolCall;
  /** Hook file problems, and the repository's hooks left out because it is not trusted. */
  warnings: string[];
}

/** Part: the command hooks of settings and plugins, their runner, and the after-call chain. */
export async function loadSessionHooks(input: SessionHooksInput): Promise<SessionHooks> {
  const { sources, options, live, trust } = input;
  const loaded = await loadWorkspaceHooks({ ...sources, trusted: trust.trusted });
  const set: HookSet = { ...loaded, hooks: loaded.hooks.filter((hook) => !trust.skipHook(hook)) };
  const warnings = set.problems.map((problem) => `${problem.path}: ${problem.message}`);
  if (set.untrusted.length)
    warnings.push(`${set.untrusted.length} hook(s) this repository brings (its settings or plugins) did not load because the workspace is not trusted.`);
  const runner = createHookRunner({
    hooks: set,
    sessionId: () => live.session.id,
    transcriptPath: () => input.storage.transcriptPathOf(live.session.id),
    cwd: sources.workspaceRoot,
    permissionMode: () => sdkPermissionMode(live.permissionMode),
    traceparent: () => live.traceparent,
    // Without the provider keys, as MCP servers and the model's commands get it; `hooks.env.passThrough` keeps named ones.
    env: input.hookEnv,
  });
  const commandHooks = hookToolCallbacks(runner, (message) => options.onHookMessage?.(message));
  // Redaction last, so nothing a hook appends carries a secret to the model either.
  // Cross-cutting parts (checkpoints) see the call's outcome first, before hooks or redaction change it.
  const seams = input.seams.filter((seam) => seam !== undefined);
  const afterHooks = [
    ...seams.map((seam) => seam.afterToolCall),
    options.afterToolCall,
    commandHooks.afterToolCall,
    guardrailToolHook(input.agent.guardrails),
  ].filter((hook): hook is AfterToolCall => hook !== undefined);
  const afterToolCall: AfterToolCall | undefined = afterHooks.length ? composeAfterToolCall(...afterHooks) : undefined;
  const afterPermission = seams.length ? composeBeforeToolCall(...seams.map((seam) => seam.beforeToolCall)) : undefined;
  return {
    set,
    runner,
    ...(commandHooks.beforeToolCall ? { beforeToolCall: commandHooks.beforeToolCall } : {}),
    ...(afterToolCall ? { afterToolCall } : {}),
    ...(afterPermission ? { afterPermission } : {}),
    warnings,
  };
}
