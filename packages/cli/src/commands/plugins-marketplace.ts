import { configDir, PluginStore } from '@beans/core';
import type { CliOptions } from '../options.js';

function store(): PluginStore {
  return new PluginStore(configDir(process.env));
}

function say(text: string): number {
  process.stdout.write(`${text}\n`);
  return 0;
}

/** `beans plugins marketplace add <path | git-url | owner/repo>` */
export async function marketplaceAdd(_options: CliOptions, source: string): Promise<number> {
  const added = await store().addMarketplace(source, process.cwd());
  return say(
    `Added marketplace ${added.name} (${added.plugins.length} plugin${added.plugins.length === 1 ? '' : 's'}). Install one with \`beans plugins install <plugin>@${added.name}\`.`,
  );
}

/** `beans plugins marketplace list [--json]` */
export async function marketplaceList(_options: CliOptions, local: { json?: boolean }): Promise<number> {
  const markets = await store().listMarketplaces();
  if (local.json) return say(JSON.stringify({ marketplaces: markets }));
  if (markets.length === 0) return say('No marketplaces. Add one with `beans plugins marketplace add <path | git-url | owner/repo>`.');
  const lines: string[] = [];
  for (const market of markets) {
    lines.push(`${market.name}  ${market.source}`);
    for (const plugin of market.plugins)
      lines.push(`  ${plugin.name}${plugin.version ? ` ${plugin.version}` : ''}${plugin.description ? `  ${plugin.description}` : ''}`);
  }
  return say(lines.join('\n'));
}

/** `beans plugins marketplace update [name]` */
export async function marketplaceUpdate(_options: CliOptions, name?: string): Promise<number> {
  const names = await store().updateMarketplace(name);
  return say(names.length === 0 ? 'No marketplaces to update.' : `Updated ${names.join(', ')}.`);
}

/** `beans plugins marketplace remove <name>` */
export async function marketplaceRemove(_options: CliOptions, name: string): Promise<number> {
  await store().removeMarketplace(name);
  return say(`Removed marketplace ${name}; plugins installed from it stay until \`beans plugins uninstall\`.`);
}

/** `beans plugins install <plugin>[@marketplace]` */
export async function pluginInstall(_options: CliOptions, spec: string): Promise<number> {
  const installed = await store().install(spec);
  return say(`Installed ${installed.name}${installed.version ? ` ${installed.version}` : ''} from ${installed.marketplace}.`);
}

/** `beans plugins update <plugin>` */
export async function pluginUpdate(_options: CliOptions, name: string): Promise<number> {
  const updated = await store().update(name.split('@')[0]);
  return say(`Updated ${updated.name}${updated.version ? ` to ${updated.version}` : ''}.`);
}

/** `beans plugins uninstall <plugin>` */
export async function pluginUninstall(_options: CliOptions, name: string): Promise<number> {
  await store().uninstall(name.split('@')[0]);
  return say(`Uninstalled ${name}.`);
}

/** `beans plugins enable|disable <plugin>` */
export async function pluginSetEnabled(_options: CliOptions, name: string, enabled: boolean): Promise<number> {
  await store().setEnabled(name.split('@')[0], enabled);
  return say(`${enabled ? 'Enabled' : 'Disabled'} ${name}.`);
}
