import path from 'node:path';
import { PluginStore, builtinPluginsDir, decideWorkspaceTrust, type InstalledPlugin, loadWorkspaceHooks, summaryLine, type HookCommand } from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans plugins list [--json]`: every plugin with its agents, skills and commands, and every problem. */
export async function pluginsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  const store = new PluginStore(base.configDir);
  const installed: Record<string, InstalledPlugin> = (await store.state().catch(() => ({ plugins: {} }))).plugins;
  const installOf = (name: string, root: string) => (root === path.join(store.pluginsDir, name) ? installed[name] : undefined);
  const entry = (item: { name: string; description: string }) => ({ name: item.name, description: item.description });
  // A plugin that only ships hooks is not an empty plugin: list its hooks (and whether they run here).
  // Core's trust decision, as a session's: a hook added after the folder was trusted does not run either.
  const trust = await decideWorkspaceTrust({ workspaceRoot: base.workspace.root, env: base.env, plugins: catalog.plugins, trustFlag: options.trust });
  const hookSet = await loadWorkspaceHooks({
    workspaceRoot: base.workspace.root,
    env: base.env,
    plugins: catalog.plugins,
    trusted: trust.trusted,
    builtinPluginsDir: builtinPluginsDir(),
  });
  // A hook added after the folder was trusted says so; one of an untrusted folder is only `runs: false`.
  const listed = (hook: HookCommand, runs: boolean): PluginHook => ({
    event: hook.event,
    ...(hook.matcher ? { matcher: hook.matcher } : {}),
    command: hook.command,
    runs: runs && !trust.skipHook(hook),
    ...(runs && trust.skipHook(hook) ? { notRun: 'added after this folder was trusted (`beans trust` approves it)' } : {}),
  });
  const hooksOf = (name: string) =>
    [...hookSet.hooks.map((hook) => ({ hook, runs: true })), ...hookSet.untrusted.map((hook) => ({ hook, runs: false }))]
      .filter(({ hook }) => hook.source.kind === 'plugin' && hook.source.plugin === name)
      .map(({ hook, runs }) => listed(hook, runs));
  const plugins = catalog.plugins.map((plugin) => ({
    name: plugin.name,
    root: plugin.root,
    ...(plugin.version ? { version: plugin.version } : {}),
    ...(installOf(plugin.name, plugin.root)
      ? { source: installOf(plugin.name, plugin.root)!.source, marketplace: installOf(plugin.name, plugin.root)!.marketplace }
      : {}),
    // An agent's own skills are private to it; the exposed ones are what callers see as agent:skill.
    agents: plugin.agents.map((agent) => ({
      ...entry(agent),
      ...(agent.ownSkills
        ? { skills: agent.ownSkills.map((skill) => ({ ...entry(skill), exposed: agent.exposedSkills?.includes(skill.name) === true })) }
        : {}),
    })),
    skills: plugin.skills.map(entry),
    commands: plugin.commands.map(entry),
    hooks: hooksOf(plugin.name),
  }));
  const disabled = Object.entries(installed)
    .filter(([, plugin]) => !plugin.enabled)
    .map(([name, plugin]) => ({ name, ...plugin }));
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ plugins, disabled, problems: catalog.problems })}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const plugin of plugins) {
    const from = plugin.source ? `  (from ${plugin.marketplace}: ${plugin.source})` : '';
    lines.push(`${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}  ${plugin.root}${from}`);
    for (const [label, items] of [
      ['agents', plugin.agents],
      ['skills', plugin.skills],
      ['commands', plugin.commands],
    ] as const) {
      if (items.length === 0) continue;
      lines.push(`  ${label}:`);
      for (const item of items) {
        lines.push(`    ${label === 'commands' ? '/' : ''}${item.name}${item.description ? `  ${summaryLine(item.description, 100)}` : ''}`);
        const own = 'skills' in item ? item.skills : undefined;
        if (own)
          lines.push(
            `      own skills: ${own.map((skill) => (skill.exposed ? `${skill.name} (exposed as ${item.name}:${skill.name})` : skill.name)).join(', ')}`,
          );
      }
    }
    if (plugin.hooks.length > 0) {
      lines.push('  hooks:');
      for (const hook of plugin.hooks)
        lines.push(
          `    ${hook.event}${hook.matcher ? ` [${hook.matcher}]` : ''}  ${hook.command}${hook.runs ? '' : `  (not run: ${hook.notRun ?? 'this workspace is not trusted'})`}`,
        );
    }
  }
  if (plugins.length === 0) lines.push('No plugins found.');
  for (const plugin of disabled)
    lines.push(`${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}  disabled (\`beans plugins enable ${plugin.name}\` loads it again)`);
  if (catalog.problems.length > 0) {
    lines.push('', `Problems (${catalog.problems.length}):`);
    for (const problem of catalog.problems) lines.push(`  ${problem.path}: ${problem.message}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

interface PluginHook {
  event: string;
  matcher?: string;
  command: string;
  runs: boolean;
  notRun?: string;
}
