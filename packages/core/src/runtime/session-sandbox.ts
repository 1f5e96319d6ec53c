import { parseToolRules } from '../permissions/rules.js';
import { createShellSandbox, sandboxReadDenials, type ShellSandbox } from '../sandbox/index.js';
import type { BeansConfig } from '../config/index.js';

export interface SessionSandboxInput {
  /** The `sandbox` settings (`--sandbox` turns it on). */
  settings: BeansConfig['sandbox'];
  /** The deny rules: a denied read is denied inside the sandbox too. */
  deny: readonly string[];
  workspaceRoot: string;
}

/**
 * Part: the OS sandbox shell commands run in (`--sandbox`), else undefined. A machine that cannot
 * sandbox stops the run here, before any network (SandboxUnavailableError, exit 3).
 */
export async function createSessionSandbox(input: SessionSandboxInput): Promise<ShellSandbox | undefined> {
  if (!input.settings.enabled) return undefined;
  return createShellSandbox({
    workspaceRoot: input.workspaceRoot,
    allowedHosts: input.settings.allowedHosts,
    denyRead: sandboxReadDenials(parseToolRules(input.deny), input.workspaceRoot),
  });
}
