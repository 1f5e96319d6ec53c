import type { ChatSession } from '../agent/chat-session.js';
import type { ReadOnlyCommandCheck } from '../agent/tool-executor.js';
import { composeBeforeToolCall, type BeforeToolCall } from '../agent/tool-hooks.js';
import { claudeToolName } from '../claude/vocabulary.js';
import { formatConfigSource, type LoadedConfig } from '../config/index.js';
import { createAuthorize } from '../permissions/authorize.js';
import { createPluginWriteGuard } from '../plugins/runnable-file.js';
import { createReadDenied } from '../permissions/read-deny.js';
import { classifyReadOnly } from '../permissions/read-only.js';
import { parseToolRules, ruleCoversTool, type ToolRule } from '../permissions/rules.js';
import { analyzeShellCommand } from '../permissions/shell-parse.js';
import type { AskUser, Authorize } from '../permissions/types.js';
import type { Workspace } from '../workspace/workspace.js';
import type { PermissionRulesInfo } from './agent-session-types.js';
import type { Live } from './live.js';
import { isDontAsk } from './permission-mode.js';
import type { SessionHooks } from './session-hooks.js';
import type { AgentSessionOptions, CanUseTool } from './session-options.js';
import { createToolQuota } from './tool-limits.js';

/** The program's say in permissions: its callbacks, its mode, its quotas. */
export type PermissionOptions = Pick<AgentSessionOptions, 'beforeToolCall' | 'canUseTool' | 'onAsk' | 'interactive' | 'permissionMode' | 'toolLimits'>;

export interface PermissionChainInput {
  /** The `permissions` settings, and the file (or flag) each rule came from (`/permissions`). */
  config: LoadedConfig;
  workspace: Workspace;
  options: PermissionOptions;
  live: Live;
  hooks: Pick<SessionHooks, 'runner' | 'beforeToolCall' | 'afterPermission'>;
  /** Whether shell commands run in the OS sandbox (the policy asks less then). */
  sandboxed: boolean;
}

/** What was decided about one tool call, and by whom (telemetry's `tool_decision`). */
interface ToolCallDecision {
  toolName: string;
  toolUseId: string;
  decision: 'accept' | 'reject';
  /** `user`: a person (or the SDK program) answered; `hook`: a PreToolUse hook blocked it; `config`: rules and mode. */
  source: 'config' | 'user' | 'hook';
}

/** One conversation's permission check and the "always" answers it collects. */
interface ConversationCheck {
  approved: ToolRule[];
  beforeToolCall: BeforeToolCall;
  /** A new run of the conversation: `toolLimits` count from zero again. */
  startRun(): void;
}

export interface PermissionChain {
  /** The allow rules in force; a command's allowed-tools join it for the run it starts. */
  allow: ToolRule[];
  deny: ToolRule[];
  /** Whether a bare tool name in the deny list removes this tool: the model never sees it. */
  isRemoved(toolName: string): boolean;
  readDenied: ((relativePath: string) => boolean) | undefined;
  /** Whether read-only command lines run without asking (settings `permissions.readOnlyCommands`, on by default). */
  readOnlyCommands: boolean;
  /**
   * The steering check (the loop's seam): a command line that runs without asking as read-only still
   * runs once the user steers. Undefined when read-only lines ask (`readOnlyCommands: false`).
   */
  isReadOnlyCommand: ReadOnlyCommandCheck | undefined;
  /** A fresh check for a new conversation: "always" answers must not outlive /clear or /resume. */
  newCheck(): ConversationCheck;
  /** Makes `check` the conversation's own, so its subagents share it and /permissions lists it. */
  adopt(session: ChatSession, check: ConversationCheck): void;
  /** The conversation's check (subagents borrow it); undefined once the conversation was replaced. */
  checkOf(session: ChatSession): BeforeToolCall | undefined;
  /** `/permissions`: the rules in force with their sources, and the conversation's "always" answers. */
  rules(session: ChatSession): PermissionRulesInfo;
  /** Forgets "always" answers of the conversation: the one written as `rule`, or all. Returns how many went. */
  removeApprovals(session: ChatSession, rule?: string): number;
  /** Hears every decision of every conversation's check; returns the unsubscribe. */
  onDecision(listener: (decision: ToolCallDecision) => void): () => void;
}

/** Part: before every tool call, the caller's hook, PreToolUse hooks, then the permission policy. */
export function createPermissionChain(input: PermissionChainInput): PermissionChain {
  const { config, workspace, options, live, hooks } = input;
  const values = config.values;
  const deny = parseToolRules(values.permissions.deny);
  const removed = deny.filter((rule) => rule.pattern === undefined).map((rule) => rule.tool);
  // Notification hooks: a permission question is waiting for the person.
  const ask = askFunction(
    {
      ...options,
      onAsk: (tool) => {
        options.onAsk?.(tool);
        if (hooks.runner.has('Notification'))
          void hooks.runner.notification(`Beans needs your permission to use ${claudeToolName(tool)}`).then((outcome) => live.notices(outcome.userMessages));
      },
    },
    () => live.asker,
  );
  const allow = parseToolRules(values.permissions.allow);
  const readDenied = createReadDenied(deny, workspace.root);
  const readOnlyCommands = values.permissions.readOnlyCommands !== false;
  // Plugin commands, skills and agents the model writes that would run code when used (issue 53 item 2).
  const protectedWrite = createPluginWriteGuard({ root: workspace.root, pluginDirs: values.plugins.dirs });
  const checks = new WeakMap<ChatSession, BeforeToolCall>();
  const approvals = new WeakMap<ChatSession, ToolRule[]>();
  const decisionListeners = new Set<(decision: ToolCallDecision) => void>();
  return {
    allow,
    deny,
    isRemoved: (toolName) => removed.some((ruleTool) => ruleCoversTool(ruleTool, toolName)),
    readDenied,
    readOnlyCommands,
    isReadOnlyCommand: readOnlyCommands ? isReadOnlyCommandLine : undefined,
    newCheck() {
      const approved: ToolRule[] = [];
      // Who decided, by call id, for the listeners: a person asked, or a hook that blocked.
      const asked = new Set<string>();
      const blockedByHook = new Set<string>();
      const askAndNote: AskUser | undefined = ask && ((request, signal) => (asked.add(request.call.id), ask(request, signal)));
      const hookAndNote: BeforeToolCall | undefined =
        hooks.beforeToolCall &&
        (async (context, signal) => {
          const result = await hooks.beforeToolCall!(context, signal);
          if (result?.block) blockedByHook.add(context.call.id);
          return result;
        });
      const quota = createToolQuota(options.toolLimits);
      const check = composeBeforeToolCall(
        options.beforeToolCall,
        hookAndNote,
        permissionHook(
          createAuthorize({
            mode: () => live.permissionMode,
            allow,
            deny,
            workspace,
            ask: askAndNote,
            sandboxed: input.sandboxed,
            approved,
            readOnlyCommands,
            protectedWrite,
          }),
        ),
        // Only calls the policy let through use up a quota.
        quota?.beforeToolCall,
        // Only calls the policy let through reach the parts that wrap execution (checkpoints).
        hooks.afterPermission,
      );
      const beforeToolCall: BeforeToolCall = async (context, signal) => {
        const result = await check(context, signal);
        const id = context.call.id;
        const source = blockedByHook.delete(id) ? 'hook' : asked.delete(id) ? 'user' : 'config';
        const decision: ToolCallDecision = { toolName: context.tool.name, toolUseId: id, decision: result?.block ? 'reject' : 'accept', source };
        for (const listener of decisionListeners) listener(decision);
        return result;
      };
      return { approved, beforeToolCall, startRun: () => quota?.startRun() };
    },
    adopt(session, check) {
      checks.set(session, check.beforeToolCall);
      approvals.set(session, check.approved);
    },
    checkOf: (session) => checks.get(session),
    rules: (session) => ({
      allow: rulesWithSources(config, 'permissions.allow'),
      deny: rulesWithSources(config, 'permissions.deny'),
      approved: (approvals.get(session) ?? []).map((rule) => rule.source),
      readOnlyCommands: { enabled: readOnlyCommands, source: settingSource(config, 'permissions.readOnlyCommands') },
    }),
    removeApprovals(session, rule) {
      const approved = approvals.get(session) ?? [];
      const before = approved.length;
      const kept = approved.filter((entry) => rule !== undefined && entry.source !== rule);
      approved.splice(0, approved.length, ...kept);
      return before - kept.length;
    },
    onDecision(listener) {
      decisionListeners.add(listener);
      return () => decisionListeners.delete(listener);
    },
  };
}

/** The permission policy as a before-hook (the loop knows hooks, not the policy). */
export function permissionHook(authorize: Authorize): BeforeToolCall {
  return async (context, signal) => {
    let decision;
    try {
      decision = await authorize({ call: context.call, tool: context.tool, input: context.input, hint: context.permission }, signal);
    } catch (error) {
      decision = { allow: false as const, reason: `Permission check failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (!decision.allow)
      return { block: true, reason: `Permission denied: ${decision.reason}`, status: 'denied', ...(decision.interrupt ? { interrupt: true } : {}) };
    return decision.updatedInput !== undefined ? { input: decision.updatedInput } : undefined;
  };
}

/** A line the policy would run without asking as read-only (permissions/read-only.ts). */
async function isReadOnlyCommandLine(command: string, workspaceRoot: string): Promise<boolean> {
  return classifyReadOnly(await analyzeShellCommand(command), command, { workspaceRoot }).readOnly;
}

/** Where a setting's value came from (a settings file, a flag), or `default`. */
function settingSource(config: LoadedConfig, key: string): string {
  const entry = config.entries.find((candidate) => candidate.key === key);
  return entry ? formatConfigSource(entry.source) : 'default';
}

/** Each rule of a concatenated list setting with the file (or flag) it came from. */
function rulesWithSources(config: LoadedConfig, key: string): { rule: string; source: string }[] {
  const entry = config.entries.find((candidate) => candidate.key === key);
  if (!entry || !Array.isArray(entry.value)) return [];
  return (entry.value as string[]).map((rule, index) => ({ rule, source: formatConfigSource(entry.itemSources?.[index] ?? entry.source) }));
}

/**
 * Who answers "may this call run?": the interactive prompt when one is installed, else the SDK
 * program's canUseTool, else nobody (the call is denied with instructions). `dontAsk` never asks.
 */
function askFunction(options: PermissionOptions, asker: () => AskUser | undefined): AskUser | undefined {
  if (isDontAsk(options.permissionMode)) return undefined;
  const canUseTool = options.canUseTool;
  if (!options.interactive && !canUseTool) return undefined;
  return async (request, signal) => {
    const prompt = asker();
    if (prompt) {
      options.onAsk?.(request.tool.name);
      return prompt(request, signal);
    }
    if (canUseTool) return askProgram(canUseTool, request, signal);
    return { decision: 'deny', reason: 'No one is there to approve it.' };
  };
}

async function askProgram(canUseTool: CanUseTool, request: Parameters<AskUser>[0], signal: AbortSignal): ReturnType<AskUser> {
  const answer = await canUseTool(request.tool.name, request.input as Record<string, unknown>, { signal, toolUseID: request.call.id, suggestions: [] });
  if (answer.behavior === 'allow') return { decision: 'once', ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}) };
  return { decision: 'deny', reason: answer.message, ...(answer.interrupt ? { interrupt: true } : {}) };
}
