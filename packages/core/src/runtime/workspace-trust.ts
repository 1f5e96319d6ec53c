import path from 'node:path';
import { configDir, loadConfig, localSettingsPath, workspaceSettingsPath, type ConfigFlags, type SettingSource } from '../config/index.js';
import { setTrustDecision, trustDecisionFor, type IgnoredRequest } from '../config/trust.js';
import { recordApprovedDeclarations } from '../config/trusted-declarations.js';
import type { HookCommand } from '../hooks/index.js';
import type { LspServerDeclaration } from '../lsp/declarations.js';
import type { McpServerEntry } from '../mcp/mcp-config.js';
import { resolveWorkspace } from '../workspace/workspace.js';
import { builtinPluginsDir, loadCatalog, loadRuntimeBase } from './base.js';
import {
  describeDeclaration,
  hookId,
  lspServerId,
  mcpServerId,
  newSinceTrust,
  recordTrustedDeclarations,
  repositoryDeclarations,
  type Declaration,
  type DeclarationsInput,
} from './repository-declarations.js';

// Workspace trust, decided here and only here. A session (every front end's), `beans mcp list`,
// `beans hooks list`, `beans lsp list` and `beans plugins list` ask decideWorkspaceTrust what runs;
// a front end that can ask a person asks trustQuestion what to ask, renders it its own way, and
// hands the answer back to answerTrustQuestion / approveDeclaration.

export interface DecideTrustInput extends DeclarationsInput {
  /** `--trust`: this run trusts the folder and everything it declares, and records nothing. */
  trustFlag?: boolean;
}

/** What a repository's own files may do in this run. */
export interface WorkspaceTrust {
  /** Whether the repository's own settings, hooks, commands' allowed-tools, MCP and language servers apply. */
  trusted: boolean;
  /** `--trust`; the user's recorded answer for this folder or one above it; or none yet. */
  basis: 'flag' | 'trusted' | 'untrusted' | 'undecided';
  /** What a trusted folder declared after it was trusted and nobody approved since: it does not run. */
  unapproved: Declaration[];
  skipServer: (server: Pick<McpServerEntry, 'name' | 'config'>) => boolean;
  skipLspServer: (server: Pick<LspServerDeclaration, 'name' | 'command' | 'args' | 'env'>) => boolean;
  skipHook: (hook: Pick<HookCommand, 'event' | 'matcher' | 'command'>) => boolean;
  /** The repository's statusLine command changed since trust and is not approved: no status line is drawn. */
  skipStatusLine: boolean;
  /** For a session to show: one line naming what was left out, and how to approve it. */
  warnings: string[];
}

/**
 * The one trust decision: `--trust`, else the user's record. Trust covers what the repository
 * declared when it was trusted; a server, hook or status line added since (and not approved) does
 * not run. With no record of declarations yet, today's become the record (newSinceTrust).
 */
export async function decideWorkspaceTrust(input: DecideTrustInput): Promise<WorkspaceTrust> {
  const basis = input.trustFlag ? 'flag' : (trustDecisionFor(input.workspaceRoot, input.env)?.decision ?? 'undecided');
  const unapproved = basis === 'trusted' ? await newSinceTrust({ ...input, builtinPluginsDir: input.builtinPluginsDir ?? builtinPluginsDir() }) : [];
  const ids = (kind: Declaration['kind']) => new Set(unapproved.filter((d) => d.kind === kind).map((d) => d.id));
  const [servers, lspServers, hooks] = [ids('MCP server'), ids('LSP server'), ids('hook')];
  const listed = unapproved.map((d) => describeDeclaration(d, input.workspaceRoot)).join('; ');
  return {
    trusted: basis === 'flag' || basis === 'trusted',
    basis,
    unapproved,
    // Nothing to hash when nothing is new (the usual case).
    skipServer: (server) => servers.size > 0 && servers.has(mcpServerId(server)),
    skipLspServer: (server) => lspServers.size > 0 && lspServers.has(lspServerId(server)),
    skipHook: (hook) => hooks.size > 0 && hooks.has(hookId(hook)),
    skipStatusLine: unapproved.some((d) => d.kind === 'status line'),
    warnings: unapproved.length
      ? [
          `This folder was trusted before it declared these, so they did not run: ${listed}. Run \`beans trust\` to approve them, or start \`beans\` (chat) to be asked about each.`,
        ]
      : [],
  };
}

/** The chat's question on first start in an untrusted folder whose own files ask for more or ship servers or hooks. */
export interface TrustQuestion {
  kind: 'folder';
  workspaceRoot: string;
  /** Exactly what the folder's own files ask for that is ignored until it is trusted. */
  requests: IgnoredRequest[];
  /** The ids of the servers and hooks listed: trusting records them as what the trust covers. */
  declarationIds: string[];
}

/** The servers, hooks and status line a trusted folder declared after it was trusted, to ask about one by one. */
export interface ApprovalQuestion {
  kind: 'approval';
  workspaceRoot: string;
  declarations: Declaration[];
}

export interface TrustQuestionOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  settingSources?: readonly SettingSource[];
  /** `--trust`: nothing to ask. */
  trusted?: boolean;
  /** Beans' built-in plugins (default: the packaged folder). */
  builtinPluginsDir?: string;
}

/**
 * What to ask a person before the session is built, or undefined: the folder question when the
 * user never decided for it (or a folder above it) and its files ask for something; else the
 * approval of what a trusted folder added since. At most one of them applies.
 */
export async function trustQuestion(options: TrustQuestionOptions = {}): Promise<TrustQuestion | ApprovalQuestion | undefined> {
  if (options.trusted) return undefined;
  const env = options.env ?? process.env;
  const workspace = resolveWorkspace(options.cwd ?? process.cwd());
  const workspaceRoot = workspace.root;
  const config = await loadConfig({ workspaceRoot, env, flags: options.flags, settingSources: options.settingSources, cwd: workspace.cwd });
  const catalog = await loadCatalog({ env, workspace, config, configDir: configDir(env) }, options.builtinPluginsDir);
  const sources: DeclarationsInput = {
    workspaceRoot,
    env,
    plugins: catalog.plugins,
    builtinPluginsDir: options.builtinPluginsDir ?? builtinPluginsDir(),
    settingSources: options.settingSources,
  };
  const trust = await decideWorkspaceTrust(sources);
  if (trust.basis === 'trusted') return trust.unapproved.length ? { kind: 'approval', workspaceRoot, declarations: trust.unapproved } : undefined;
  if (trust.basis !== 'undecided') return undefined;
  const declarations = await repositoryDeclarations(sources);
  // Servers and hooks of the settings files are already among the settings requests.
  const settingsFiles = new Set([workspaceSettingsPath(workspaceRoot), localSettingsPath(workspaceRoot)].map((file) => path.resolve(file)));
  const shipped = declarations
    .filter((d) => !settingsFiles.has(path.resolve(d.file)))
    .map((d): IgnoredRequest => ({ key: `${d.kind} ${d.name}`, value: d.command, file: d.file }));
  const requests = [...config.ignored, ...shipped];
  if (requests.length === 0) return undefined;
  return { kind: 'folder', workspaceRoot, requests, declarationIds: declarations.map((d) => d.id) };
}

/** A person's answer to the folder question; 'not-now' records nothing (asked again next time). */
export type TrustAnswer = 'trust' | 'trust-parent' | 'untrust' | 'not-now';

/** Records the answer. Trusting covers the servers and hooks the question listed; one added later is asked about. */
export async function answerTrustQuestion(question: TrustQuestion, answer: TrustAnswer, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (answer === 'not-now') return false;
  if (answer === 'untrust') {
    await setTrustDecision(question.workspaceRoot, 'untrusted', env);
    return false;
  }
  await setTrustDecision(answer === 'trust-parent' ? path.dirname(question.workspaceRoot) : question.workspaceRoot, 'trusted', env);
  await recordApprovedDeclarations(question.workspaceRoot, question.declarationIds, env, { replace: true });
  return true;
}

/** Records one approved server, hook or status line of an approval question: it runs from now on. */
export async function approveDeclaration(question: ApprovalQuestion, declaration: Declaration, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await recordApprovedDeclarations(question.workspaceRoot, [declaration.id], env);
}

/**
 * `beans trust`: trusts the folder, and when it is a workspace root records what it declares now as
 * what the trust covers. Returns the folder recorded and how many declarations its trust covers.
 */
export async function trustFolder(folder: string, env: NodeJS.ProcessEnv = process.env): Promise<{ folder: string; declarations: number }> {
  const recorded = await setTrustDecision(folder, 'trusted', env);
  const base = await loadRuntimeBase({ cwd: recorded, env, trusted: true });
  if (base.workspace.root !== recorded) return { folder: recorded, declarations: 0 };
  const plugins = (await loadCatalog(base)).plugins;
  return { folder: recorded, declarations: await recordTrustedDeclarations({ workspaceRoot: recorded, env, plugins, builtinPluginsDir: builtinPluginsDir() }) };
}
