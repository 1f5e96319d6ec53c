import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError, loadRuntimeBase } from '@beans/core';
import { cliSessionOptions, clientFor, loadBase, providerIdOf, sessionStore } from '../bootstrap.js';
import type { CliOptions } from '../options.js';
import type { WebRouteOptions } from './web-routes.js';

// What the web view's routes read from the command line's settings: the default provider and model,
// that provider's models, and a folder's stored sessions.

/** The provider and model new sessions get, and that provider's models (the settings of the folder `beans serve` runs in). */
export function webRouteSources(options: CliOptions): Pick<WebRouteOptions, 'defaults' | 'listModels' | 'storedSessions'> {
  let base: ReturnType<typeof loadBase> | undefined;
  const loaded = () => (base ??= loadBase(options));
  return {
    defaults: async () => {
      const loadedBase = await loaded();
      return { provider: providerIdOf(loadedBase), model: loadedBase.config.values.model };
    },
    storedSessions: async (cwd: string) => {
      const folder = path.resolve(cwd);
      if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new UsageError(`${cwd} is not a folder on this machine.`);
      const base = await loadRuntimeBase({ cwd: folder, flags: cliSessionOptions(options, 'chat').flags, trusted: options.trust || undefined });
      return sessionStore(base)
        .list()
        .slice(0, 50)
        .map(({ id, title, firstPrompt, lastActivity, turns, model }) => ({
          id,
          title: title || firstPrompt,
          lastActivity,
          turns,
          ...(model ? { model } : {}),
        }));
    },
    listModels: async () => {
      const loadedBase = await loaded();
      const provider = providerIdOf(loadedBase);
      const models = await (await clientFor(loadedBase, provider)).listModels();
      return { provider, models: models.map(({ name, contextWindow }) => ({ name, ...(contextWindow ? { contextWindow } : {}) })) };
    },
  };
}
