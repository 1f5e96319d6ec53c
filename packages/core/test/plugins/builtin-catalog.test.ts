import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shippedPluginsDir, storeBuiltinPlugins, storedBuiltinPlugins } from '../../src/plugins/builtin-catalog.js';
import { BUILTIN_PLUGINS } from '../../src/plugins/builtin-plugins.generated.js';
import { loadPluginsSync, readRoot } from '../../src/plugins/load-plugins.js';
import type { PluginInfo } from '../../src/plugins/types.js';

const REGENERATE = 'the Markdown in plugins/ changed: run pnpm run --silent build && node scripts/precompute.mjs';
const shipped = path.resolve(import.meta.dirname, '../../../../plugins');

/** Every entry of the plugins with its body loader taken out (functions compare by identity). */
function withoutLoaders(plugins: PluginInfo[]): unknown {
  const strip = <T extends { loadBody: unknown }>({ loadBody: _body, ...rest }: T) => rest;
  return plugins.map((plugin) => ({
    ...plugin,
    agents: plugin.agents.map((agent) => ({ ...strip(agent), ...(agent.ownSkills ? { ownSkills: agent.ownSkills.map(strip) } : {}) })),
    skills: plugin.skills.map(strip),
    commands: plugin.commands.map(strip),
  }));
}

function bodyLoaders(plugins: PluginInfo[]): Array<() => Promise<string>> {
  return plugins
    .flatMap((plugin) => [...plugin.agents, ...plugin.agents.flatMap((agent) => agent.ownSkills ?? []), ...plugin.skills, ...plugin.commands])
    .map((entry) => entry.loadBody);
}

describe("Beans' own plugins, read at build time", () => {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'beans-builtin-catalog-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('are what start-up would read from their Markdown files, paths, undefined fields and bodies included', async () => {
    expect(shippedPluginsDir()).toBe(shipped);
    const fromFiles = readRoot({ dir: shipped, kind: 'builtin' }, new Set());
    expect(storeBuiltinPlugins(shipped, fromFiles), REGENERATE).toStrictEqual(BUILTIN_PLUGINS);
    const stored = storedBuiltinPlugins(shipped, new Set());
    expect(withoutLoaders(stored.plugins), REGENERATE).toStrictEqual(withoutLoaders(fromFiles.plugins));
    expect(stored.problems).toStrictEqual(fromFiles.problems);
    const [storedBodies, fileBodies] = await Promise.all(
      [bodyLoaders(stored.plugins), bodyLoaders(fromFiles.plugins)].map((loaders) => Promise.all(loaders.map((load) => load()))),
    );
    expect(storedBodies.length).toBeGreaterThanOrEqual(10);
    expect(storedBodies).toStrictEqual(fileBodies);
  });

  it('are taken for the shipped folder as the built-in root, disabled plugins left out as from files', () => {
    const disabled = ['devops-operations'];
    const catalog = loadPluginsSync({ roots: [{ dir: shipped, kind: 'builtin' }], disabled });
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(
      readRoot({ dir: shipped, kind: 'builtin' }, new Set(disabled)).plugins.map((plugin) => plugin.name),
    );
    expect(catalog.plugins.map((plugin) => plugin.name)).toEqual(['code-development', 'general-assistant']);
    expect(catalog.findAgent('ci-investigator')).toBeUndefined();
    expect(catalog.findAgent('reviewer')?.path).toBe(path.join(shipped, 'code-development', 'agents', 'reviewer.md'));
  });

  it('are not used for another built-in folder, nor for the shipped folder given as --plugin-dir', () => {
    const copy = path.join(temp, 'plugins');
    cpSync(shipped, copy, { recursive: true });
    writeFileSync(path.join(copy, 'code-development', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: A copy edited by its owner.\n---\nBody.\n');
    const fromCopy = loadPluginsSync({ roots: [{ dir: copy, kind: 'builtin' }] });
    expect(fromCopy.findAgent('reviewer')?.description).toBe('A copy edited by its owner.');
    const asExtra = loadPluginsSync({ roots: [{ dir: shipped, kind: 'extra' }] });
    expect(withoutLoaders(asExtra.plugins)).toStrictEqual(withoutLoaders(readRoot({ dir: shipped, kind: 'extra' }, new Set()).plugins));
  });
});
