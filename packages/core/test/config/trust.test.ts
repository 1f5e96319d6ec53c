import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { isTrusted, setTrustDecision, trustedFoldersPath } from '../../src/config/trust.js';
import { ConfigError } from '../../src/errors.js';
import { tempHome } from './temp-home.js';

let t: ReturnType<typeof tempHome>;
afterEach(() => t?.cleanup());

describe('workspace trust gate in loadConfig', () => {
  it('drops a workspace yolo and falls back to the user setting, naming what it dropped', async () => {
    t = tempHome();
    t.write(t.userFile, { permissions: { mode: 'auto-edit', allow: ['read_file'] } });
    t.write(t.workspaceFile, { permissions: { mode: 'yolo', allow: ['shell'], deny: ['shell(rm *)'] } });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.permissions).toEqual({ mode: 'auto-edit', allow: ['read_file'], deny: ['shell(rm *)'], readOnlyCommands: true });
    expect(loaded.entries.find((entry) => entry.key === 'permissions.mode')?.source).toEqual({ file: t.userFile });
    expect(loaded.ignored.map((request) => [request.key, request.value])).toEqual([
      ['permissions.mode', 'yolo'],
      ['permissions.allow', ['shell']],
    ]);
    expect(loaded.warnings.at(-1)).toBe(
      `This folder is not trusted, so its settings were ignored where they loosen Beans: permissions.mode "yolo" (.beans/settings.json), permissions.allow ["shell"] (.beans/settings.json). Run \`beans trust\` to trust ${t.workspace}, or pass --trust for one run.`,
    );
  });

  it('falls back to the default when nothing else sets the key, and keeps flags and tightening', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { permissions: { mode: 'auto-edit' }, sandbox: { enabled: true } });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.permissions.mode).toBe('default');
    expect(loaded.values.sandbox.enabled).toBe(true);
    const flagged = await loadConfig({ workspaceRoot: t.workspace, env: t.env, flags: { 'permissions.mode': 'yolo' } });
    expect(flagged.values.permissions.mode).toBe('yolo');
    expect(flagged.ignored).toEqual([]);
  });

  it('a workspace cannot turn off the sandbox the user turned on, nor widen its hosts or Unix sockets', async () => {
    t = tempHome();
    t.write(t.userFile, { sandbox: { enabled: true } });
    t.write(t.workspaceFile, {
      sandbox: { enabled: false, allowedHosts: ['evil.example'], network: { allowUnixSockets: ['/var/run/docker.sock'], allowAllUnixSockets: true } },
    });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.sandbox).toEqual({ enabled: true, allowedHosts: [], network: { allowUnixSockets: [], allowAllUnixSockets: false } });
    expect(loaded.ignored.map((request) => request.key)).toEqual([
      'sandbox.enabled',
      'sandbox.allowedHosts',
      'sandbox.network.allowUnixSockets',
      'sandbox.network.allowAllUnixSockets',
    ]);
  });

  it('applies everything in a trusted folder, or with trusted: true for one run', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { permissions: { mode: 'yolo' } });
    expect((await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true })).values.permissions.mode).toBe('yolo');
    await setTrustDecision(t.workspace, 'trusted', t.env);
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.permissions.mode).toBe('yolo');
    expect(loaded.ignored).toEqual([]);
  });
});

describe('trusted folders', () => {
  it('the nearest decision wins: a trusted parent trusts children, an untrusted child overrides it', async () => {
    t = tempHome();
    const child = path.join(t.base, 'projects', 'a');
    const other = path.join(t.base, 'projects', 'b');
    mkdirSync(child, { recursive: true });
    mkdirSync(other, { recursive: true });
    expect(isTrusted(child, t.env)).toBe(false);
    await setTrustDecision(path.join(t.base, 'projects'), 'trusted', t.env);
    expect(isTrusted(child, t.env)).toBe(true);
    await setTrustDecision(child, 'untrusted', t.env);
    expect(isTrusted(child, t.env)).toBe(false);
    expect(isTrusted(other, t.env)).toBe(true);
    expect(JSON.parse(readFileSync(trustedFoldersPath(t.env), 'utf8')).folders[child]).toBe('untrusted');
  });

  it('a folder reached through a symlink is judged by its real path', async () => {
    t = tempHome();
    const real = path.join(t.base, 'real');
    mkdirSync(real);
    symlinkSync(real, path.join(t.base, 'link'));
    await setTrustDecision(path.join(t.base, 'link'), 'trusted', t.env);
    expect(isTrusted(real, t.env)).toBe(true);
    expect(isTrusted(path.join(t.base, 'link'), t.env)).toBe(true);
  });

  it('a broken trust file is a configuration error naming the file', async () => {
    t = tempHome();
    mkdirSync(path.dirname(trustedFoldersPath(t.env)), { recursive: true });
    writeFileSync(trustedFoldersPath(t.env), '{"folders": [');
    expect(() => isTrusted(t.workspace, t.env)).toThrow(ConfigError);
    expect(() => isTrusted(t.workspace, t.env)).toThrow(trustedFoldersPath(t.env));
  });
});
