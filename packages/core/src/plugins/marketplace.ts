import { cp, mkdir, readFile, rename, rm, stat, writeFile } from '../async-fs.js';
import path from 'node:path';
import { BeansError, UsageError } from '../errors.js';
import { withFileLock } from '../file-lock.js';
import { isInside } from '../workspace/paths.js';
import { builtin } from '../node-builtins.js';

/** Claude Code's `.claude-plugin/marketplace.json`, as far as installing needs it. */
export interface MarketplacePlugin {
  name: string;
  /** `./plugins/x` (inside the marketplace), a git URL, or `{source: 'github', repo}` / `{source: 'url', url}`. */
  source: string | { source?: string; repo?: string; url?: string; ref?: string; path?: string };
  description?: string;
  version?: string;
}

export interface MarketplaceRecord {
  /** What the user typed: a path, a git URL or `owner/repo`. */
  source: string;
  /** The folder that holds `.claude-plugin/marketplace.json` (a clone, or the user's own folder). */
  dir: string;
  git: boolean;
}

export interface InstalledPlugin {
  marketplace: string;
  /** Where the files came from, for `beans plugins list`. */
  source: string;
  version?: string;
  enabled: boolean;
}

interface State {
  marketplaces: Record<string, MarketplaceRecord>;
  plugins: Record<string, InstalledPlugin>;
}

export class MarketplaceError extends BeansError {
  constructor(message: string) {
    super(message, 1);
  }
}

const MANIFEST = path.join('.claude-plugin', 'marketplace.json');
const NAME = /^[A-Za-z0-9][\w.-]*$/;

/** Marketplace and install state under the user's config folder; installed plugins go to its `plugins/`. */
export class PluginStore {
  constructor(readonly configDir: string) {}

  get pluginsDir(): string {
    return path.join(this.configDir, 'plugins');
  }

  private get stateFile(): string {
    return path.join(this.configDir, 'plugin-state.json');
  }

  async state(): Promise<State> {
    try {
      const parsed = JSON.parse(await readFile(this.stateFile, 'utf8')) as Partial<State>;
      return { marketplaces: parsed.marketplaces ?? {}, plugins: parsed.plugins ?? {} };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { marketplaces: {}, plugins: {} };
      throw new MarketplaceError(`${this.stateFile} is not valid JSON; fix or delete it.`);
    }
  }

  /**
   * Applies a change to the newest state under a lock every Beans process takes, so two installs
   * (or an install and a marketplace add) at once both stay recorded.
   */
  private async updateState(change: (state: State) => void): Promise<void> {
    await mkdir(this.configDir, { recursive: true });
    await withFileLock(this.stateFile, async () => {
      const state = await this.state();
      change(state);
      await this.save(state);
    });
  }

  private async save(state: State): Promise<void> {
    const temp = `${this.stateFile}.${builtin('node:crypto').randomBytes(4).toString('hex')}.tmp`;
    await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
    await rename(temp, this.stateFile);
  }

  /** Adds a marketplace: a local folder is read in place; a git URL or `owner/repo` is cloned. */
  async addMarketplace(source: string, cwd: string): Promise<{ name: string; plugins: MarketplacePlugin[] }> {
    const local = path.resolve(cwd, source);
    const isLocal = await exists(local);
    if (!isLocal && !looksLikeGit(source)) throw new UsageError(`"${source}" is neither a folder nor a git URL nor owner/repo.`);
    const staging = isLocal ? undefined : await this.clone(gitUrl(source), path.join(this.configDir, 'marketplaces'));
    try {
      const dir = staging ?? local;
      const manifest = await readMarketplace(dir);
      const state = await this.state();
      if (state.marketplaces[manifest.name]) throw new UsageError(`A marketplace named "${manifest.name}" is already added; remove it first or update it.`);
      let finalDir = dir;
      if (staging) {
        finalDir = path.join(this.configDir, 'marketplaces', manifest.name);
        await rm(finalDir, { recursive: true, force: true });
        await rename(staging, finalDir);
      }
      await this.updateState((latest) => (latest.marketplaces[manifest.name] = { source, dir: finalDir, git: staging !== undefined }));
      return { name: manifest.name, plugins: manifest.plugins };
    } catch (error) {
      if (staging) await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  async listMarketplaces(): Promise<Array<MarketplaceRecord & { name: string; plugins: MarketplacePlugin[] }>> {
    const state = await this.state();
    return Promise.all(
      Object.entries(state.marketplaces).map(async ([name, record]) => ({
        name,
        ...record,
        plugins: (await readMarketplace(record.dir).catch(() => ({ plugins: [] }))).plugins,
      })),
    );
  }

  /** Pulls the newest commit of git marketplaces (all, or the one named). */
  async updateMarketplace(name?: string): Promise<string[]> {
    const state = await this.state();
    const names = name ? [name] : Object.keys(state.marketplaces);
    for (const each of names) {
      const record = state.marketplaces[each];
      if (!record) throw new UsageError(`No marketplace named "${each}"; \`beans plugins marketplace list\` shows them.`);
      if (record.git) await git(['pull', '--ff-only', '--quiet'], record.dir);
    }
    return names;
  }

  async removeMarketplace(name: string): Promise<void> {
    const state = await this.state();
    const record = state.marketplaces[name];
    if (!record) throw new UsageError(`No marketplace named "${name}"; \`beans plugins marketplace list\` shows them.`);
    await this.updateState((latest) => delete latest.marketplaces[name]);
    if (record.git) await rm(record.dir, { recursive: true, force: true });
  }

  /**
   * Copies `plugin[@marketplace]` into the user's plugin folder. The copy is built beside it and
   * renamed into place, so a failure leaves nothing half-installed.
   */
  async install(spec: string, options: { replace?: boolean } = {}): Promise<{ name: string; version?: string; marketplace: string }> {
    const { plugin, marketplace } = await this.findPlugin(spec);
    const state = await this.state();
    if (state.plugins[plugin.name] && !options.replace)
      throw new UsageError(`Plugin "${plugin.name}" is already installed; use \`beans plugins update ${plugin.name}\`.`);
    const record = state.marketplaces[marketplace];
    const target = path.join(this.pluginsDir, plugin.name);
    if (!options.replace && (await exists(target))) throw new UsageError(`${target} already exists and was not installed by Beans; move it away first.`);
    await mkdir(this.pluginsDir, { recursive: true });
    const staging = path.join(this.pluginsDir, `.installing-${plugin.name}-${builtin('node:crypto').randomBytes(4).toString('hex')}`);
    try {
      const source = await this.fetchPlugin(plugin, record, staging);
      await rm(path.join(staging, '.git'), { recursive: true, force: true });
      await rm(target, { recursive: true, force: true });
      await rename(staging, target);
      await this.updateState(
        (latest) =>
          (latest.plugins[plugin.name] = {
            marketplace,
            source,
            ...(plugin.version ? { version: plugin.version } : {}),
            enabled: latest.plugins[plugin.name]?.enabled ?? true,
          }),
      );
      return { name: plugin.name, version: plugin.version, marketplace };
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  async uninstall(name: string): Promise<void> {
    const state = await this.state();
    if (!state.plugins[name]) throw new UsageError(`Plugin "${name}" was not installed with \`beans plugins install\`.`);
    await rm(path.join(this.pluginsDir, name), { recursive: true, force: true });
    await this.updateState((latest) => delete latest.plugins[name]);
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    if (!(await this.state()).plugins[name]) throw new UsageError(`Plugin "${name}" was not installed with \`beans plugins install\`.`);
    await this.updateState((latest) => {
      const installed = latest.plugins[name];
      if (installed) installed.enabled = enabled;
    });
  }

  /** Re-installs from the marketplace (after pulling it), keeping enabled/disabled. */
  async update(name: string): Promise<{ name: string; version?: string; marketplace: string }> {
    const installed = (await this.state()).plugins[name];
    if (!installed) throw new UsageError(`Plugin "${name}" was not installed with \`beans plugins install\`.`);
    await this.updateMarketplace(installed.marketplace);
    return this.install(`${name}@${installed.marketplace}`, { replace: true });
  }

  /** Installed plugins turned off with `beans plugins disable`; the loader leaves them out. */
  async disabledPlugins(): Promise<string[]> {
    const state = await this.state();
    return Object.entries(state.plugins)
      .filter(([, plugin]) => !plugin.enabled)
      .map(([name]) => name);
  }

  private async findPlugin(spec: string): Promise<{ plugin: MarketplacePlugin; marketplace: string }> {
    const [name, wanted] = spec.split('@') as [string, string | undefined];
    const all = await this.listMarketplaces();
    if (all.length === 0) throw new UsageError('No marketplace is added; run `beans plugins marketplace add <path | git-url | owner/repo>` first.');
    const matches = all
      .filter((market) => wanted === undefined || market.name === wanted)
      .flatMap((market) => market.plugins.filter((plugin) => plugin.name === name).map((plugin) => ({ plugin, marketplace: market.name })));
    if (matches.length === 0)
      throw new UsageError(
        `No plugin "${name}" in ${wanted ? `marketplace "${wanted}"` : 'any added marketplace'}; \`beans plugins marketplace list\` shows what they offer.`,
      );
    if (matches.length > 1)
      throw new UsageError(
        `Plugin "${name}" is in several marketplaces (${matches.map((match) => match.marketplace).join(', ')}); name one: ${name}@<marketplace>.`,
      );
    if (!NAME.test(matches[0].plugin.name))
      throw new MarketplaceError(`Marketplace "${matches[0].marketplace}" names a plugin "${name}", which is not a safe folder name.`);
    return matches[0];
  }

  private async fetchPlugin(plugin: MarketplacePlugin, record: MarketplaceRecord, staging: string): Promise<string> {
    const source = plugin.source;
    if (typeof source === 'string' && !looksLikeRemote(source)) {
      const from = path.resolve(record.dir, source);
      if (!isInside(record.dir, from) && from !== record.dir)
        throw new MarketplaceError(`Plugin "${plugin.name}" points outside its marketplace (${source}); it was not installed.`);
      if (!(await exists(from)))
        throw new MarketplaceError(`Plugin "${plugin.name}" is missing from its marketplace (${source}); run \`beans plugins marketplace update\`.`);
      await cp(from, staging, { recursive: true, verbatimSymlinks: true });
      return `${record.source} ${source}`;
    }
    const url = typeof source === 'string' ? gitUrl(source) : source.repo ? gitUrl(source.repo) : source.url;
    if (!url) throw new MarketplaceError(`Plugin "${plugin.name}" has a source Beans cannot read: ${JSON.stringify(source)}.`);
    const ref = typeof source === 'string' ? undefined : source.ref;
    assertEncrypted(url, `Plugin "${plugin.name}"`);
    await git(['clone', '--quiet', '--depth', '1', ...(ref ? ['--branch', ref] : []), url, staging], path.dirname(staging));
    return url;
  }

  private async clone(url: string, parent: string): Promise<string> {
    await mkdir(parent, { recursive: true });
    assertEncrypted(url, 'The marketplace');
    const staging = path.join(parent, `.adding-${builtin('node:crypto').randomBytes(4).toString('hex')}`);
    try {
      await git(['clone', '--quiet', '--depth', '1', url, staging], parent);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    return staging;
  }
}

async function readMarketplace(dir: string): Promise<{ name: string; plugins: MarketplacePlugin[] }> {
  const file = path.join(dir, MANIFEST);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new MarketplaceError(missing ? `${dir} has no ${MANIFEST}; it is not a marketplace.` : `${file} is not valid JSON (${(error as Error).message}).`);
  }
  const record = (typeof json === 'object' && json !== null ? json : {}) as { name?: unknown; plugins?: unknown };
  if (typeof record.name !== 'string' || !NAME.test(record.name)) throw new MarketplaceError(`${file} has no usable "name".`);
  const plugins = Array.isArray(record.plugins)
    ? (record.plugins as ({ name?: unknown; source?: unknown } | null | undefined)[]).filter(
        (item): item is MarketplacePlugin => typeof item?.name === 'string' && item.source !== undefined,
      )
    : [];
  return { name: record.name, plugins };
}

async function git(args: string[], cwd: string): Promise<void> {
  // No prompts: a private repository without credentials fails instead of waiting for a password.
  const { execa } = await import('execa');
  const result = await execa('git', args, { cwd, reject: false, env: { GIT_TERMINAL_PROMPT: '0' }, stdin: 'ignore' });
  if (result.exitCode !== 0) throw new MarketplaceError(`git ${args[0]} failed: ${String(result.stderr).trim().split('\n').pop() ?? 'unknown error'}`);
}

/**
 * A plugin runs as yours (its hooks and servers included), so it is never fetched where anyone on the
 * way could swap it: `http://` and `git://` are refused before connecting (issue 53 item 6, the class
 * of models pull over plain http). https, ssh and local paths are fetched as before.
 */
function assertEncrypted(url: string, what: string): void {
  if (!/^(?:http|git):\/\//i.test(url)) return;
  throw new MarketplaceError(
    `${what} would be fetched without encryption (${url}): anyone on the way could swap its files, and a plugin's hooks and servers run as you. Use an https:// or ssh address.`,
  );
}

function looksLikeRemote(source: string): boolean {
  return /^(?:https?|git|ssh|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source);
}

function looksLikeGit(source: string): boolean {
  return looksLikeRemote(source) || /^[\w.-]+\/[\w.-]+$/.test(source);
}

/** `owner/repo` is a GitHub repository, as in Claude Code; URLs pass through. */
function gitUrl(source: string): string {
  return looksLikeRemote(source) ? source : `https://github.com/${source.replace(/\.git$/, '')}.git`;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
