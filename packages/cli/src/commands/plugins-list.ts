import path from 'node:path';
import { PluginStore, summaryLine } from '@beans/core';
import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans plugins list [--json]`: every plugin with its agents, skills and commands, and every problem. */
export async function pluginsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const catalog = await loadCatalog(base);
  const store = new PluginStore(base.configDir);
  const installed = (await store.state().catch(() => ({ plugins: {} as Awaited<ReturnType<PluginStore['state']>>['plugins'] }))).plugins;
  const installOf = (name: string, root: string) => (root === path.join(store.pluginsDir, name) ? installed[name] : undefined);
  const entry = (item: { name: string; description: string }) => ({ name: item.name, description: item.description });
  const plugins = catalog.plugins.map((plugin) => ({
    name: plugin.name,
    root: plugin.root,
    ...(plugin.version ? { version: plugin.version } : {}),
    ...(installOf(plugin.name, plugin.root) ? { source: installOf(plugin.name, plugin.root)!.source, marketplace: installOf(plugin.name, plugin.root)!.marketplace } : {}),
    agents: plugin.agents.map(entry),
    skills: plugin.skills.map(entry),
    commands: plugin.commands.map(entry),
  }));
  const disabled = Object.entries(installed).filter(([, plugin]) => !plugin.enabled).map(([name, plugin]) => ({ name, ...plugin }));
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ plugins, disabled, problems: catalog.problems })}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const plugin of plugins) {
    const from = plugin.source ? `  (from ${plugin.marketplace}: ${plugin.source})` : '';
    lines.push(`${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}  ${plugin.root}${from}`);
    for (const [label, items] of [['agents', plugin.agents], ['skills', plugin.skills], ['commands', plugin.commands]] as const) {
      if (items.length === 0) continue;
      lines.push(`  ${label}:`);
      for (const item of items) lines.push(`    ${label === 'commands' ? '/' : ''}${item.name}${item.description ? `  ${summaryLine(item.description, 100)}` : ''}`);
    }
  }
  if (plugins.length === 0) lines.push('No plugins found.');
  for (const plugin of disabled) lines.push(`${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}  disabled (\`beans plugins enable ${plugin.name}\` loads it again)`);
  if (catalog.problems.length > 0) {
    lines.push('', `Problems (${catalog.problems.length}):`);
    for (const problem of catalog.problems) lines.push(`  ${problem.path}: ${problem.message}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
