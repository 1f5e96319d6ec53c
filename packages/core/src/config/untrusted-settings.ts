import path from 'node:path';

// What a repository that is not trusted may set in its own settings files (`.beans/settings.json`,
// `.beans/settings.local.json`). This is an allow-list on purpose: a key that is not named here, or
// a value its rule refuses, is ignored and named in one warning line, so a setting added to Beans
// later (an endpoint, a database URL, a command) is safe in a cloned repository until someone
// decides it is harmless and adds it here.
//
// On the list: the model, limits and display preferences, and what only tightens (deny rules,
// plan mode, the sandbox on, fewer variables in commands). Off it, among others: `provider`,
// `providers`, every provider's `baseUrl`/`host`, `tools.env.passThrough`, `sessions.dir`, `debug`,
// `guardrails` (a repository's list would replace the user's), `plugins.disabled` (it could switch
// off the user's own guard plugins), `mcpServers` and `hooks` (commands), and looser permissions.

export interface UntrustedRule {
  /** Whether the repository's value may apply. `userValue`: the value without the repository's files. */
  allowed(value: unknown, userValue: unknown, workspaceRoot: string): boolean;
  /** For a list that may only grow the user's own (deny rules): the value that applies. */
  combine?(value: unknown, userValue: unknown): unknown;
}

const any: UntrustedRule = { allowed: () => true };
const only = (test: (value: unknown) => boolean): UntrustedRule => ({ allowed: (value) => test(value) });
const isEmptyList = (value: unknown) => Array.isArray(value) && value.length === 0;
/** A limit the repository may lower, never raise above what the user set. */
const atMostUsers: UntrustedRule = { allowed: (value, userValue) => typeof userValue !== 'number' || (typeof value === 'number' && value <= userValue) };
/** A list the repository's items are added to, the user's items kept. */
const addsToUsers: UntrustedRule = {
  allowed: (value) => Array.isArray(value),
  combine: (value, userValue) => [...new Set([...(Array.isArray(userValue) ? (userValue as unknown[]) : []), ...(value as unknown[])])],
};

const RULES: Readonly<Record<string, UntrustedRule>> = {
  model: any,
  'models.gemini': any,
  'models.anthropic': any,
  'models.openai': any,
  'models.ollama': any,
  'permissions.mode': only((value) => value === 'plan' || value === 'default'),
  'permissions.allow': only(isEmptyList),
  'permissions.deny': addsToUsers,
  // Turning the read-only rule off only tightens; turning it back on is the user's call.
  'permissions.readOnlyCommands': only((value) => value === false),
  maxTurns: atMostUsers,
  maxBudgetUsd: atMostUsers,
  thinking: any,
  // Plugin folders inside the repository are the repository's plugins: their hooks and servers
  // wait for trust like the rest (hooks/workspace-hooks.ts, mcp/collect-servers.ts).
  // The merged list also holds the user's own folders, which may lie anywhere.
  'plugins.dirs': {
    allowed: (value, userValue, root) =>
      Array.isArray(value) &&
      value.every((dir) => typeof dir === 'string' && (isInsideOrSame(root, dir) || (Array.isArray(userValue) && userValue.includes(dir)))),
  },
  'ui.theme': any,
  'ui.markdown': any,
  'ui.showCost': any,
  'tools.env.strip': addsToUsers,
  'tools.defer': any,
  'tools.deferThreshold': any,
  'shell.maxBackgroundTasks': atMostUsers,
  'compaction.enabled': any,
  'compaction.threshold': any,
  'compaction.contextWindow': any,
  'loopDetection.enabled': any,
  'loopDetection.maxRepeats': any,
  'webFetch.allowPrivateNetwork': only((value) => value === false),
  'webFetch.timeoutMs': atMostUsers,
  'webFetch.maxBytes': atMostUsers,
  'agents.maxParallel': atMostUsers,
  'agents.maxTurns': atMostUsers,
  'sandbox.enabled': only((value) => value === true),
  'sandbox.allowedHosts': only(isEmptyList),
  'mcp.timeoutMs': any,
  // How long to wait for a language server is harmless; which servers run (`lsp.servers`) is a command.
  'lsp.diagnostics': any,
  'lsp.diagnosticsTimeoutMs': any,
  'lsp.requestTimeoutMs': any,
  // The standing instructions are prompt text, as the repository's AGENTS.md already is.
  sop: any,
};

/** The rule for a dotted leaf key, or undefined when an untrusted repository may not set it. */
export function untrustedRule(key: string): UntrustedRule | undefined {
  return Object.hasOwn(RULES, key) ? RULES[key] : undefined;
}

/** The keys an untrusted repository may set (with their rules), for the README and tests. */
export function untrustedAllowedKeys(): string[] {
  return Object.keys(RULES);
}

function isInsideOrSame(root: string, dir: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(root, dir));
  return !relative.startsWith('..') && !path.isAbsolute(relative);
}
