import { builtinPluginsDir, decideWorkspaceTrust, describeHookSource, loadWorkspaceHooks, showUntrusted, type HookCommand } from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/**
 * `beans hooks list [--json]`: every configured hook with its event, matcher and source. Hooks of
 * the repository's own settings and plugins are listed in an untrusted workspace too, marked as not running.
 */
export async function hooksList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  // Core's trust decision, as a session's: a hook the folder declared after it was trusted does not run until approved.
  const trust = await decideWorkspaceTrust({ workspaceRoot: base.workspace.root, env: base.env, plugins: catalog.plugins, trustFlag: options.trust });
  const set = await loadWorkspaceHooks({
    workspaceRoot: base.workspace.root,
    env: base.env,
    plugins: catalog.plugins,
    trusted: trust.trusted,
    builtinPluginsDir: builtinPluginsDir(),
  });
  const rows = [
    ...set.hooks.map((hook) =>
      row(hook, !trust.skipHook(hook), trust.skipHook(hook) ? 'added after this folder was trusted (`beans trust` approves it)' : undefined),
    ),
    ...set.untrusted.map((hook) => row(hook, false)),
  ];
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ hooks: rows, problems: set.problems })}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const event of [...new Set(rows.map((r) => r.event))]) {
    lines.push(`${event}:`);
    for (const r of rows.filter((x) => x.event === event)) {
      const matcher = r.matcher === undefined || r.matcher === '' ? '' : `[${r.matcher}] `;
      lines.push(
        `  ${showUntrusted(matcher, 400)}${showUntrusted(r.command, 400)}  (${describeHookSource(r.source)}, ${r.timeout} s${r.runs ? '' : `, not run: ${r.notRun ?? 'this workspace is not trusted'}`})`,
      );
    }
  }
  if (rows.length === 0)
    lines.push(
      'No hooks configured. Add them under "hooks" in .beans/settings.json or ~/.config/beans-agent/settings.json, or install a plugin with hooks/hooks.json.',
    );
  if (set.problems.length > 0) {
    lines.push('', `Problems (${set.problems.length}):`);
    for (const problem of set.problems) lines.push(`  ${problem.path}: ${problem.message}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function row(hook: HookCommand, runs: boolean, notRun?: string) {
  return { event: hook.event, matcher: hook.matcher, command: hook.command, timeout: hook.timeout, source: hook.source, runs, ...(notRun ? { notRun } : {}) };
}
