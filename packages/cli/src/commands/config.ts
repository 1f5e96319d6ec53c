import path from 'node:path';
import {
  configDir,
  describeSandboxUnixSockets,
  formatConfigSource,
  isTrusted,
  resolveProvider,
  resolveWorkspace,
  setConfigValue,
  untrustedAllowedKeys,
} from '@beans/core';
import { loadBase } from '../bootstrap.js';
import type { CliOptions } from '../options.js';

/** `beans config [--json]`: every effective value and where it came from. */
export async function configShow(options: CliOptions, local: { json?: boolean }): Promise<number> {
  const base = await loadBase(options);
  const entries = base.config.entries.map((entry) => ({
    key: entry.key,
    value: entry.value,
    source: formatConfigSource(entry.source),
  }));
  // Which provider a run would use, and why (a flag, a setting, or the first key found).
  const chosen = resolveProvider(base.config, base.env);
  // Whether --sandbox would keep commands from Unix sockets here (the seccomp filter tried once).
  const sockets = await describeSandboxUnixSockets(base.config.values.sandbox.network, base.workspace.root);
  const sandbox = { enabled: base.config.values.sandbox.enabled, unixSockets: { state: sockets.state, detail: sockets.detail } };
  if (local.json) {
    process.stdout.write(`${JSON.stringify({ entries, files: base.config.files, provider: { id: chosen.providerId, reason: chosen.reason }, sandbox })}\n`);
    return 0;
  }
  const width = Math.max(...entries.map((entry) => entry.key.length));
  for (const entry of entries) {
    process.stdout.write(`${entry.key.padEnd(width)}  ${JSON.stringify(entry.value)}  (${entry.source})\n`);
  }
  process.stdout.write(`\nProvider: ${chosen.providerId} (${chosen.reason})\n`);
  process.stdout.write(`Sandbox: ${sandbox.enabled ? 'on' : 'off (--sandbox turns it on)'}; ${sockets.detail}\n`);
  return 0;
}

/** `beans config set <key> <value> [--global]`: writes one setting, keeping the rest of the file. */
export async function configSet(_options: CliOptions, key: string, value: string, local: { global?: boolean }): Promise<number> {
  // No loadConfig here: `config set` must be able to repair a settings file that fails validation.
  const root = resolveWorkspace().root;
  const file = local.global ? path.join(configDir(process.env), 'settings.json') : path.join(root, '.beans', 'settings.json');
  await setConfigValue({ file, key, value });
  process.stdout.write(`Set ${key} in ${file}\n`);
  // The workspace file is the repository's word: in an untrusted folder only the allow-list applies.
  if (!local.global && !untrustedAllowedKeys().includes(key) && !isTrusted(root, process.env)) {
    process.stdout.write(
      `This folder is not trusted, so ${key} in its settings has no effect until you run \`beans trust\`; \`beans config set --global\` sets it for you everywhere.\n`,
    );
  }
  return 0;
}
