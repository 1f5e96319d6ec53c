import { describeHookSource, loadWorkspaceHooks, type HookCommand } from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/**
 * `beans hooks list [--json]`: every configured hook with its event, matcher and source. Hooks of
 * the repository's own settings are listed in an untrusted workspace too, marked as not running.
 */
export async function hooksList(options: CliOptions, local: { json?: boolean }, trusted = false): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  const set = await loadWorkspaceHooks({ workspaceRoot: base.workspace.root, env: base.env, plugins: catalog.plugins, trusted });
  const rows = [...set.hooks.map((hook) => row(hook, true)), ...set.untrusted.map((hook) => row(hook, false))];
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ hooks: rows, problems: set.problems })}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const event of [...new Set(rows.map((r) => r.event))]) {
    lines.push(`${event}:`);
    for (const r of rows.filter((x) => x.event === event)) {
      const matcher = r.matcher === undefined || r.matcher === '' ? '' : `[${r.matcher}] `;
      lines.push(`  ${matcher}${r.command}  (${describeHookSource(r.source)}, ${r.timeout} s${r.runs ? '' : ', not run: this workspace is not trusted'})`);
    }
  }
  if (rows.length === 0) lines.push('No hooks configured. Add them under "hooks" in .beans/settings.json or ~/.config/beans-agent/settings.json, or install a plugin with hooks/hooks.json.');
  if (set.problems.length > 0) {
    lines.push('', `Problems (${set.problems.length}):`);
    for (const problem of set.problems) lines.push(`  ${problem.path}: ${problem.message}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function row(hook: HookCommand, runs: boolean) {
  return { event: hook.event, matcher: hook.matcher, command: hook.command, timeout: hook.timeout, source: hook.source, runs };
}
