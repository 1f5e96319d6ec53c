import { isTrusted } from '../config/trust.js';
import { parseToolRules } from '../permissions/rules.js';
import { createShellSandbox, sandboxReadDenials, type ShellSandbox } from '../sandbox/index.js';
import type { RuntimeBase } from './base.js';
import type { AgentSessionOptions } from './session-options.js';

export interface TrustAndSandbox {
  /** Whether the workspace's own settings, hooks, commands and MCP servers are trusted. */
  workspaceTrusted: boolean;
  /** The OS sandbox shell commands run in (`--sandbox`), else undefined. */
  sandbox: ShellSandbox | undefined;
}

/** Part 2: one trust decision for everything the repository asks to run or loosen, and the sandbox. */
export async function settleTrustAndSandbox(base: RuntimeBase, options: AgentSessionOptions, warnings: string[]): Promise<TrustAndSandbox> {
  const values = base.config.values;
  // One decision for everything a repository asks to run or loosen: its settings (loaded already),
  // its .mcp.json, hooks and commands' allowed-tools. --trust, else the user's recorded answer.
  const workspaceTrusted = options.trustWorkspace === true || isTrusted(base.workspace.root, base.env);
  // --sandbox: shell commands run in an OS sandbox, or the run stops here, before any network
  // (SandboxUnavailableError, exit 3).
  const sandbox = values.sandbox.enabled
    ? await createShellSandbox({
        workspaceRoot: base.workspace.root,
        allowedHosts: values.sandbox.allowedHosts,
        denyRead: sandboxReadDenials(parseToolRules(values.permissions.deny), base.workspace.root),
        unixSockets: values.sandbox.network,
      })
    : undefined;
  // Without its Unix socket filter the sandbox says so once, and (unless allowed) refuses commands.
  if (sandbox?.unixSockets.notice) warnings.push(sandbox.unixSockets.notice);
  return { workspaceTrusted, sandbox };
}
