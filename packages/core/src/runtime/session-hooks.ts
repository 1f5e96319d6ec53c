import { composeAfterToolCall, composeBeforeToolCall, type AfterToolCall, type BeforeToolCall } from '../agent/tool-hooks.js';
import { guardrailToolHook, type Guardrails } from '../guardrails/index.js';
import {
  createHookRunner,
  hookToolCallbacks,
  loadWorkspaceHooks,
  programHookCommands,
  type HookCommand,
  type HookRunner,
  type HookSet,
} from '../hooks/index.js';
import { HOOK_EVENTS } from '../hooks/schema.js';
import type { PluginCatalog } from '../plugins/index.js';
import type { SessionStore } from '../session/index.js';
import { builtinPluginsDir, programEnvironment, type RuntimeBase } from './base.js';
import type { Live } from './live.js';
import { sdkPermissionMode } from './permission-mode.js';
import type { AgentSessionOptions } from './session-options.js';

export interface SessionHooksInput {
  base: RuntimeBase;
  options: AgentSessionOptions;
  catalog: PluginCatalog;
  workspaceTrusted: boolean;
  /** A trusted repository's hook added since it was trusted (settle-declarations.ts). */
  skipHook?: (hook: HookCommand) => boolean;
  guardrails: Guardrails;
  store: SessionStore | undefined;
  live: Live;
  warnings: string[];
  /** Parts that wrap tool execution at this one seam (checkpoints): before an allowed call runs, and after it. */
  toolSeams?: { beforeToolCall: BeforeToolCall; afterToolCall: AfterToolCall }[];
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
}

/** Part 7: the command hooks of settings and plugins, their runner, and the after-call chain. */
export async function loadSessionHooks(input: SessionHooksInput): Promise<SessionHooks> {
  const { base, options, live, store, warnings } = input;
  const loaded = await loadWorkspaceHooks({
    workspaceRoot: base.workspace.root,
    env: base.env,
    settingSources: options.settingSources,
    plugins: input.catalog.plugins,
    trusted: input.workspaceTrusted,
    builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
  });
  const skip = input.skipHook;
  const set: HookSet = skip ? { ...loaded, hooks: loaded.hooks.filter((hook) => !skip(hook)) } : loaded;
  for (const problem of set.problems) warnings.push(`${problem.path}: ${problem.message}`);
  if (set.untrusted.length)
    warnings.push(`${set.untrusted.length} hook(s) this repository brings (its settings or plugins) did not load because the workspace is not trusted.`);
  // The program's own hook functions (the SDK's callbacks) run beside them, for every event Beans has.
  const program = programHookCommands(options.hooks);
  if (program.unsupported.length > 0)
    warnings.push(`the program's ${program.unsupported.join(', ')} hook callbacks are not run: Beans has no such events (it runs ${HOOK_EVENTS.join(', ')}).`);
  const runner = createHookRunner({
    hooks: [...set.hooks, ...program.commands],
    sessionId: () => live.session.id,
    transcriptPath: () => (store ? store.pathOf(live.session.id) : ''),
    cwd: base.workspace.root,
    permissionMode: () => sdkPermissionMode(live.permissionMode),
    traceparent: () => live.traceparent,
    // Without the provider keys, as MCP servers and the model's commands get it; `hooks.env.passThrough` keeps named ones.
    env: programEnvironment(base, base.config.values.hooks?.env?.passThrough),
  });
  const commandHooks = hookToolCallbacks(runner, (message) => options.onHookMessage?.(message));
  // Redaction last, so nothing a hook appends carries a secret to the model either.
  // Cross-cutting parts (checkpoints) see the call's outcome first, before hooks or redaction change it.
  const seams = input.toolSeams ?? [];
  const afterHooks = [
    ...seams.map((seam) => seam.afterToolCall),
    options.afterToolCall,
    commandHooks.afterToolCall,
    guardrailToolHook(input.guardrails),
  ].filter((hook): hook is AfterToolCall => hook !== undefined);
  const afterToolCall: AfterToolCall | undefined = afterHooks.length ? composeAfterToolCall(...afterHooks) : undefined;
  const afterPermission = seams.length ? composeBeforeToolCall(...seams.map((seam) => seam.beforeToolCall)) : undefined;
  return {
    set,
    runner,
    ...(commandHooks.beforeToolCall ? { beforeToolCall: commandHooks.beforeToolCall } : {}),
    ...(afterToolCall ? { afterToolCall } : {}),
    ...(afterPermission ? { afterPermission } : {}),
  };
}
