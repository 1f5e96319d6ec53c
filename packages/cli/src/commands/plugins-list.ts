import { loadBase, loadCatalog } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans plugins list [--json]`: every plugin with its agents, skills and commands, and every problem. */
export async function pluginsList(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const catalog = await loadCatalog(await loadBase(options));
  const entry = (item: { name: string; description: string }) => ({ name: item.name, description: item.description });
  const plugins = catalog.plugins.map((plugin) => ({
    name: plugin.name,
    root: plugin.root,
    agents: plugin.agents.map(entry),
    skills: plugin.skills.map(entry),
    commands: plugin.commands.map(entry),
  }));
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ plugins, problems: catalog.problems })}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const plugin of plugins) {
    lines.push(`${plugin.name}  ${plugin.root}`);
    for (const [label, items] of [['agents', plugin.agents], ['skills', plugin.skills], ['commands', plugin.commands]] as const) {
      if (items.length === 0) continue;
      lines.push(`  ${label}:`);
      for (const item of items) lines.push(`    ${label === 'commands' ? '/' : ''}${item.name}${item.description ? `  ${oneLine(item.description)}` : ''}`);
    }
  }
  if (plugins.length === 0) lines.push('No plugins found.');
  if (catalog.problems.length > 0) {
    lines.push('', `Problems (${catalog.problems.length}):`);
    for (const problem of catalog.problems) lines.push(`  ${problem.path}: ${problem.message}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
