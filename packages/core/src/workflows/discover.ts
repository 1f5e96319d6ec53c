import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { asText, parseFrontmatter } from '../plugins/frontmatter.js';
import type { PluginInfo } from '../plugins/types.js';

/** A workflow file found in a plugin's `workflows/` folder or the workspace's `.beans/workflows/`. */
export interface WorkflowListing {
  name: string;
  description: string;
  path: string;
  /** `plugin:<name>` or `workspace`. */
  source: string;
  /** `plugin:name` for plugin workflows, the plain name otherwise. */
  qualifiedName: string;
}

/** The workspace's workflows first (they win a name clash), then each plugin's, in root order. */
export function listWorkflows(workspaceRoot: string, plugins: readonly Pick<PluginInfo, 'name' | 'root'>[]): WorkflowListing[] {
  const found: WorkflowListing[] = [];
  const add = (dir: string, source: string, plugin?: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir).sort()) {
      if (!entry.toLowerCase().endsWith('.md') || entry.toLowerCase() === 'readme.md') continue;
      const file = path.join(dir, entry);
      if (!statSync(file).isFile()) continue;
      // Only the frontmatter's name and description: the whole check waits for `run`.
      const data = parseFrontmatter(readFileSync(file, 'utf8')).data;
      const name = asText(data.name) ?? entry.replace(/\.md$/i, '');
      found.push({ name, description: asText(data.description) ?? '', path: file, source, qualifiedName: plugin ? `${plugin}:${name}` : name });
    }
  };
  add(path.join(workspaceRoot, '.beans', 'workflows'), 'workspace');
  for (const plugin of plugins) add(path.join(plugin.root, 'workflows'), `plugin:${plugin.name}`, plugin.name);
  return found;
}

/** `run <file | name>`: an existing file, else a listed workflow by `name` or `plugin:name`. */
export function findWorkflow(reference: string, cwd: string, listings: readonly WorkflowListing[]): string {
  const asFile = path.resolve(cwd, reference);
  if (existsSync(asFile) && statSync(asFile).isFile()) return asFile;
  const match = listings.find((listing) => listing.name === reference) ?? listings.find((listing) => listing.qualifiedName === reference);
  if (match) return match.path;
  const names = listings.map((listing) => listing.qualifiedName).join(', ');
  throw new UsageError(`There is no workflow file or workflow named "${reference}". ${names ? `Workflows: ${names}.` : 'Put workflows in .beans/workflows/ or a plugin\'s workflows/ folder.'}`);
}
