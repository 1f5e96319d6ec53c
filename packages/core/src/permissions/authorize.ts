import path from 'node:path';
import type { AnyTool } from '../tools/tool.js';
import { expandHome } from '../config/paths.js';
import { OutsideWorkspaceError, resolveInWorkspace } from '../workspace/paths.js';
import type { Workspace } from '../workspace/workspace.js';
import { allowRulesCover, findDenyingRule, type SubjectKind, type ToolRule } from './rules.js';
import { alwaysRules } from './always-rules.js';
import { classifyReadOnly } from './read-only.js';
import { analyzeShellCommand, type ShellAnalysis } from './shell-parse.js';
import type { AskUser, Authorize, PermissionDecision, PermissionMode, PermissionRequest } from './types.js';
import { isProtectedPath, isProtectedWrite } from '../workspace/protected-paths.js';

export interface AuthorizeOptions {
  /** A getter lets the UI switch modes during a session. */
  mode: PermissionMode | (() => PermissionMode);
  allow?: readonly ToolRule[];
  deny?: readonly ToolRule[];
  /** Asks the user; without it (one-shot runs) a call that would ask is denied. */
  ask?: AskUser;
  /** Lets path rules like edit_file(src/**) match absolute or `..` paths by their place in the workspace. */
  workspace?: Pick<Workspace, 'root'>;
  /** Shell commands run in an OS sandbox: it is the boundary, so they run without asking (deny rules still apply). */
  sandboxed?: boolean;
  /** Where "always" answers are kept, so the caller can list and remove them (`/permissions`); a fresh list by default. */
  approved?: ToolRule[];
  /** Read-only command lines (`ls`, `git status`) run without asking in every mode; settings `permissions.readOnlyCommands: false` turns it off. On by default. */
  readOnlyCommands?: boolean;
  /**
   * More protected paths, judged by what the write leaves in the file (plugin commands, skills and
   * agents that carry allowed-tools, `!` lines or hooks): why the change must be asked about, or undefined.
   */
  protectedWrite?: (write: { toolName: string; input: unknown; written?: string; relative: string }) => Promise<string | undefined>;
}

const ALLOW: PermissionDecision = { allow: true };
/** Commands up to this length are suggested verbatim as an --allowed-tools rule. */
const SUGGEST_COMMAND_CHARS = 80;

/**
 * The permission policy. Order: deny rules (any mode) > read-only and meta tools run > read-only
 * command lines run > plan mode refuses changes > yolo > allow rules and "always" answers > auto-edit runs edits > ask the user,
 * or deny with instructions when nobody can be asked. Workspace confinement is separate: the file
 * tools enforce it themselves, in every mode.
 */
export function createAuthorize(options: AuthorizeOptions): Authorize {
  // What "always" answers approved: an edit tool as a whole, a shell command by its prefix.
  const approved: ToolRule[] = options.approved ?? [];
  return async (request, signal) => {
    const { tool } = request;
    const kind: SubjectKind = tool.kind === 'execute' ? 'command' : tool.asksPerDomain ? 'domain' : 'path';
    const { subject, outside } = subjectOf(tool, request.input, options.workspace);
    // Commands are read the way bash reads them before any rule judges them.
    const analysis = kind === 'command' && subject !== undefined ? await analyzeShellCommand(subject) : undefined;
    const denying = findDenyingRule(options.deny ?? [], tool.name, kind, subject, analysis);
    if (denying) {
      return deny(`${tool.name} is blocked by the rule ${denying.source} (--disallowed-tools or settings). Do not retry it; find another way or ask the user.`);
    }
    // A file tool never changes anything outside the workspace, in any mode: refused here, before
    // anyone is asked to approve what would be refused anyway (an editor showed such writes for approval).
    if (outside) {
      return deny(
        `${outside} is outside the workspace: ${tool.name} never changes anything outside ${options.workspace!.root}, in any mode. Do not retry it; write inside the workspace, or tell the user what you wanted to change.`,
      );
    }
    const mode = typeof options.mode === 'function' ? options.mode() : options.mode;
    // Files that configure Beans, Claude Code, MCP servers or git itself, and plugin files that run
    // code when used: a model that could change them without asking could grant itself anything
    // next run. Only yolo skips this question.
    const protection = tool.kind === 'edit' && subject !== undefined && mode !== 'yolo' ? await protectionOf(request, subject, options) : undefined;
    const protectedPath = protection !== undefined;
    // A hook asked for the prompt: it is shown even for tools and modes that would not ask.
    const forceAsk = (request.hint === 'ask' || protectedPath) && mode !== 'yolo';
    if (!forceAsk && request.hint === 'allow') return ALLOW;
    if (!forceAsk && tool.kind !== 'edit' && tool.kind !== 'execute' && !tool.asksPerDomain) return ALLOW;
    if (!forceAsk && analysis && subject !== undefined && options.readOnlyCommands !== false && mode !== 'yolo') {
      const readOnly = readOnlyDecision(request.input, subject, analysis, options.workspace?.root);
      if (readOnly) return readOnly;
    }
    // Reading a page changes nothing, so plan mode does not refuse it; a new domain is still asked about.
    if (mode === 'plan' && !tool.asksPerDomain) {
      return deny(
        `plan mode is on, so nothing that changes files or runs commands may run (${tool.name} was refused). Describe the change you would make instead; the user leaves plan mode to apply it.`,
      );
    }
    if (mode === 'yolo') return ALLOW;
    if (options.sandboxed && tool.name === 'shell' && request.hint !== 'ask') return ALLOW;
    if (!forceAsk) {
      if (allowRulesCover([...(options.allow ?? []), ...approved], tool.name, kind, subject, analysis)) return ALLOW;
      if (mode === 'auto-edit' && tool.kind === 'edit') return ALLOW;
    }
    if (!options.ask) {
      if (protection)
        return deny(
          `${protection}, so changing it always needs the user's approval, and nobody can be asked in this non-interactive run. Do not retry it; tell the user what you wanted to change.`,
        );
      return deny(oneShotReason(tool, kind, subject));
    }
    // The question says what "always" would allow before anyone chooses it.
    const always = alwaysRules(tool, kind, subject, analysis);
    const answer = await options.ask({ ...request, alwaysRules: always.map((rule) => rule.source) }, signal);
    if (answer.decision === 'deny') {
      const reason = answer.reason?.trim();
      const text = reason
        ? `the user declined this ${tool.name} call: ${reason}`
        : `the user declined this ${tool.name} call. Do not retry it as is; ask them how to proceed.`;
      return answer.interrupt ? { allow: false, reason: text, interrupt: true } : deny(text);
    }
    if (answer.decision === 'always') approved.push(...always);
    return answer.updatedInput !== undefined ? { allow: true, updatedInput: answer.updatedInput } : ALLOW;
  };
}

/** Why an edit tool's change to `relative` must always be asked about, or undefined. */
async function protectionOf(request: PermissionRequest, relative: string, options: AuthorizeOptions): Promise<string | undefined> {
  const root = options.workspace?.root;
  let written: string | undefined;
  try {
    written = request.tool.ruleSubject?.(request.input);
  } catch {
    written = undefined;
  }
  const configures = root ? await isProtectedWrite(root, relative, written) : isProtectedPath(relative);
  if (configures) return `${relative} configures Beans, Claude Code, MCP or git`;
  return options.protectedWrite?.({ toolName: request.tool.name, input: request.input, ...(written !== undefined ? { written } : {}), relative });
}

/**
 * Runs a read-only line without asking; a git read command runs with the options that keep the
 * repository's config from starting a program (see read-only.ts), so the input is rewritten.
 */
function readOnlyDecision(input: unknown, subject: string, analysis: ShellAnalysis, workspaceRoot: string | undefined): PermissionDecision | undefined {
  const verdict = classifyReadOnly(analysis, subject, { workspaceRoot });
  if (!verdict.readOnly) return undefined;
  if (verdict.command === subject) return ALLOW;
  const record = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : undefined;
  // Only a tool whose subject is its `command` field can run the rewritten line; others run as asked.
  return record?.command === subject ? { allow: true, updatedInput: { ...record, command: verdict.command } } : ALLOW;
}

function deny(reason: string): PermissionDecision {
  return { allow: false, reason };
}

/** What rules match the call against; `outside`: the path as written, when an edit tool's path leads out of the workspace. */
function subjectOf(tool: AnyTool, input: unknown, workspace: Pick<Workspace, 'root'> | undefined): { subject: string | undefined; outside?: string } {
  let raw: string | undefined;
  try {
    raw = tool.ruleSubject?.(input);
  } catch {
    return { subject: undefined };
  }
  if (raw === undefined || !workspace || (tool.kind !== 'read' && tool.kind !== 'edit') || tool.asksPerDomain) return { subject: raw };
  try {
    return { subject: resolveInWorkspace(workspace, raw).relative };
  } catch (error) {
    // Outside the workspace: deny rules may still name absolute paths; a read tool refuses it itself.
    const subject = path.resolve(workspace.root, expandHome(raw, process.env));
    return tool.kind === 'edit' && error instanceof OutsideWorkspaceError ? { subject, outside: raw } : { subject };
  }
}

function oneShotReason(tool: AnyTool, kind: SubjectKind, subject: string | undefined): string {
  if (kind === 'domain' && subject !== undefined) {
    return (
      `${tool.name} needs the user's approval for ${subject}, and nobody can be asked in this non-interactive run. Do not retry it. ` +
      `Tell the user what you wanted to fetch and that they can re-run with --allowed-tools "${tool.name}(domain:${subject})" to allow it.`
    );
  }
  const rule = kind === 'command' && subject && subject.length <= SUGGEST_COMMAND_CHARS && !subject.includes('"') ? `"${tool.name}(${subject})"` : tool.name;
  return (
    `${tool.name} needs the user's approval, and nobody can be asked in this non-interactive run. Do not retry it. ` +
    `Tell the user what you wanted to do and that they can re-run with --yolo or --allowed-tools ${rule} to allow it.`
  );
}
