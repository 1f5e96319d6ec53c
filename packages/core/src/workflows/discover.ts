import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { asText, parseFrontmatter } from '../plugins/frontmatter.js';
import type { PluginInfo } from '../plugins/types.js';

/** A workflow file found in a plugin's `workflows/` folder, the workspace's `.beans/workflows/`, or its root `WORKFLOW.md`. */
export interface WorkflowListing {
  name: string;
  description: string;
  path: string;
  /** `plugin:<name>` or `workspace`. */
  source: string;
  /** `plugin:name` for plugin workflows, the plain name otherwise. */
  qualifiedName: string;
}

/**
 * The workspace's workflows first (they win a name clash): `.beans/workflows/`, then a `WORKFLOW.md`
 * at the repository root (any case, the way a README is found); then each plugin's, in root order.
 */
export function listWorkflows(workspaceRoot: string, plugins: readonly Pick<PluginInfo, 'name' | 'root'>[]): WorkflowListing[] {
  const found: WorkflowListing[] = [];
  const addFile = (file: string, entry: string, source: string, plugin?: string) => {
    if (!statSync(file).isFile()) return;
    // Only the frontmatter's name and description: the whole check waits for `run`.
    const data = parseFrontmatter(readFileSync(file, 'utf8')).data;
    const name = asText(data.name) ?? entry.replace(/\.md$/i, '');
    if (!plugin && found.some((listing) => listing.qualifiedName === name)) return;
    found.push({ name, description: asText(data.description) ?? '', path: file, source, qualifiedName: plugin ? `${plugin}:${name}` : name });
  };
  const add = (dir: string, source: string, plugin?: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir).sort()) {
      if (!entry.toLowerCase().endsWith('.md') || entry.toLowerCase() === 'readme.md') continue;
      addFile(path.join(dir, entry), entry, source, plugin);
    }
  };
  add(path.join(workspaceRoot, '.beans', 'workflows'), 'workspace');
  const atRoot = existsSync(workspaceRoot) ? readdirSync(workspaceRoot).find((entry) => entry.toLowerCase() === 'workflow.md') : undefined;
  if (atRoot) addFile(path.join(workspaceRoot, atRoot), atRoot, 'workspace');
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
  throw new UsageError(
    `There is no workflow file or workflow named "${reference}". ${names ? `Workflows: ${names}.` : "Put workflows in WORKFLOW.md at the repository root, .beans/workflows/ or a plugin's workflows/ folder."}`,
  );
}
