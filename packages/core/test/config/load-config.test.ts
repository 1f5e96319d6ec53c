import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type LoadedConfig } from '../../src/config/load-config.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { tempHome } from './temp-home.js';

let t: ReturnType<typeof tempHome>;
afterEach(() => t?.cleanup());

const sourceOf = (loaded: LoadedConfig, key: string) => loaded.entries.find((e) => e.key === key)?.source;

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadConfig merge order', () => {
  it('gives the defaults when nothing is configured', async () => {
    t = tempHome();
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.ollama.host).toBe('http://127.0.0.1:11434');
    expect(loaded.values.permissions).toEqual({ mode: 'default', allow: [], deny: [], readOnlyCommands: true });
    expect(loaded.values.plugins).toEqual({ dirs: [], disabled: [] });
    expect(loaded.values.ui).toEqual({ markdown: true, showCost: true });
    expect(loaded.values.provider).toBeUndefined();
    expect(sourceOf(loaded, 'ollama.host')).toBe('default');
    expect(loaded.entries.some((e) => e.key === 'provider')).toBe(false);
    expect(loaded.files).toEqual([]);
    expect(loaded.warnings).toEqual([]);
  });

  it('lets each layer beat the next: flag > env > workspace file > user file > default', async () => {
    t = tempHome();
    t.write(t.userFile, { provider: 'p-user', model: 'm-user', maxTurns: 10, maxBudgetUsd: 1, ollama: { host: 'http://user:1' }, ui: { theme: 'light' } });
    t.write(t.workspaceFile, { provider: 'p-ws', model: 'm-ws', maxTurns: 20, ollama: { host: 'http://ws:1' } });
    const env = { ...t.env, BEANS_PROVIDER: 'p-env', BEANS_MODEL: 'm-env', OLLAMA_HOST: 'http://env:1' };
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env, flags: { provider: 'p-flag' }, trusted: true });

    expect(loaded.values.provider).toBe('p-flag');
    expect(sourceOf(loaded, 'provider')).toBe('flag');
    expect(loaded.values.model).toBe('m-env');
    expect(sourceOf(loaded, 'model')).toBe('env');
    expect(loaded.values.ollama.host).toBe('http://env:1');
    expect(loaded.values.maxTurns).toBe(20);
    expect(sourceOf(loaded, 'maxTurns')).toEqual({ file: t.workspaceFile });
    expect(loaded.values.maxBudgetUsd).toBe(1);
    expect(sourceOf(loaded, 'maxBudgetUsd')).toEqual({ file: t.userFile });
    expect(loaded.values.ui).toEqual({ theme: 'light', markdown: true, showCost: true });
    expect(sourceOf(loaded, 'ui.markdown')).toBe('default');
    expect(loaded.files).toEqual([t.workspaceFile, t.userFile]);
  });

  it('reads the user file from XDG_CONFIG_HOME when it is set', async () => {
    t = tempHome();
    const xdg = path.join(t.base, 'xdg');
    t.write(path.join(xdg, 'beans-agent', 'settings.json'), { model: 'from-xdg' });
    t.write(t.userFile, { model: 'from-home' });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: { ...t.env, XDG_CONFIG_HOME: xdg } });
    expect(loaded.values.model).toBe('from-xdg');
  });

  it('maps every documented environment variable to its setting', async () => {
    t = tempHome();
    const env = {
      ...t.env,
      GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9/gemini',
      BEANS_PERMISSION_MODE: 'yolo',
      BEANS_MAX_TURNS: '7',
      BEANS_MAX_BUDGET_USD: '0.5',
    };
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env });
    expect(loaded.values.gemini.baseUrl).toBe('http://127.0.0.1:9/gemini');
    expect(loaded.values.permissions.mode).toBe('yolo');
    expect(loaded.values.maxTurns).toBe(7);
    expect(loaded.values.maxBudgetUsd).toBe(0.5);
    expect(sourceOf(loaded, 'maxTurns')).toBe('env');
  });

  it('lets flags and env replace lists, but adds plugin folders up: workspace + user + flag', async () => {
    t = tempHome();
    t.write(t.userFile, { permissions: { allow: ['read_file'] }, plugins: { dirs: ['~/my-plugins'] } });
    t.write(t.workspaceFile, { permissions: { allow: ['shell(git *)'] }, plugins: { dirs: ['tools/plugins'] } });
    const loaded = await loadConfig({
      workspaceRoot: t.workspace,
      env: t.env,
      flags: { 'permissions.allow': ['edit_file'], 'plugins.dirs': ['/opt/extra'] },
    });
    expect(loaded.values.permissions.allow).toEqual(['edit_file']);
    expect(loaded.values.plugins.dirs).toEqual([path.join(t.workspace, 'tools/plugins'), path.join(t.home, 'my-plugins'), '/opt/extra']);
    const entry = loaded.entries.find((e) => e.key === 'plugins.dirs');
    expect(entry?.source).toBe('flag');
    expect(entry?.sources).toEqual([{ file: t.workspaceFile }, { file: t.userFile }, 'flag']);
  });

  it("adds --disallowed-tools rules to the settings' deny rules instead of replacing them (deny rules only tighten)", async () => {
    t = tempHome();
    t.write(t.userFile, { permissions: { deny: ['read_file(secret.txt)'] } });
    t.write(t.workspaceFile, { permissions: { deny: ['shell(rm *)'] } });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true, flags: { 'permissions.deny': ['glob'] } });
    expect(loaded.values.permissions.deny).toEqual(['shell(rm *)', 'glob']);
    const entry = loaded.entries.find((e) => e.key === 'permissions.deny');
    expect(entry?.itemSources).toEqual([{ file: t.workspaceFile }, 'flag']);
    const untrusted = await loadConfig({ workspaceRoot: t.workspace, env: t.env, flags: { 'permissions.deny': ['glob'] } });
    // Untrusted, the repository's rules add to the user's, and each rule still says where it came from.
    const untrustedEntry = untrusted.entries.find((e) => e.key === 'permissions.deny');
    const bySource = Object.fromEntries((untrustedEntry?.value as string[]).map((rule, index) => [rule, untrustedEntry?.itemSources?.[index]]));
    expect(bySource).toEqual({ 'read_file(secret.txt)': { file: t.userFile }, 'shell(rm *)': { file: t.workspaceFile }, glob: 'flag' });
    expect(untrusted.values.permissions.deny).toEqual(untrustedEntry?.value);
    const noFiles = await loadConfig({ workspaceRoot: tempHome().workspace, env: t.env, settingSources: [], flags: { 'permissions.deny': ['glob'] } });
    expect(noFiles.values.permissions.deny).toEqual(['glob']);
  });

  it('takes the workspace list over the user list for ordinary lists', async () => {
    t = tempHome();
    t.write(t.userFile, { permissions: { deny: ['shell'] } });
    t.write(t.workspaceFile, { permissions: { deny: ['shell(rm *)'] } });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true });
    expect(loaded.values.permissions.deny).toEqual(['shell(rm *)']);
    // Untrusted, the repository's deny rules only add to the user's.
    const untrusted = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(untrusted.values.permissions.deny).toEqual(['shell', 'shell(rm *)']);
    expect(untrusted.ignored).toEqual([]);
  });

  it('accepts flags as strings the way commander hands them over', async () => {
    t = tempHome();
    const loaded = await loadConfig({
      workspaceRoot: t.workspace,
      env: t.env,
      flags: { maxTurns: '3', 'permissions.allow': 'read_file, shell(git commit -m "a, b")', 'permissions.mode': 'yolo', model: undefined },
    });
    expect(loaded.values.maxTurns).toBe(3);
    expect(loaded.values.permissions.allow).toEqual(['read_file', 'shell(git commit -m "a, b")']);
    expect(loaded.values.permissions.mode).toBe('yolo');
    expect(loaded.entries.some((e) => e.key === 'model')).toBe(false);
  });

  it('rejects a bad flag as a usage error (exit 2)', async () => {
    t = tempHome();
    const error = await loadConfig({ workspaceRoot: t.workspace, env: t.env, flags: { maxTurns: 0 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain('"maxTurns"');
    expect((error as UsageError).message).toContain('a positive whole number');
    expect((error as UsageError).exitCode).toBe(2);
  });
});

describe('loadConfig validation', () => {
  it('names the file, the dotted key and what was expected for a wrong type (exit 3)', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { permissions: { mode: 'sometimes' } });
    // Trusted: an untrusted repository's invalid value is ignored instead (issue 53 item 8, below).
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true }));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain(t.workspaceFile);
    expect(error.message).toContain('"permissions.mode"');
    expect(error.message).toContain('one of "default", "auto-edit", "yolo", "plan"');
    expect(error.message).toContain('not the string "sometimes"');
  });

  it.each([
    [{ maxTurns: 2.5 }, '"maxTurns" must be a positive whole number, not the number 2.5'],
    [{ maxTurns: '5' }, '"maxTurns" must be a positive whole number, not the string "5"'],
    [{ maxBudgetUsd: -1 }, '"maxBudgetUsd" must be a positive number of US dollars, not the number -1'],
    [{ ui: { markdown: 'yes' } }, '"ui.markdown" must be true or false, not the string "yes"'],
    [{ plugins: { dirs: ['ok', 3] } }, '"plugins.dirs[1]" must be a string, not the number 3'],
    [{ permissions: 'yolo' }, '"permissions" must be an object with the keys mode, allow, deny, readOnlyCommands, not the string "yolo"'],
    [{ debug: null }, '"debug" must be true or false, not null'],
  ])('explains %j', async (content, sentence) => {
    t = tempHome();
    t.write(t.userFile, content);
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env }));
    expect(error.message).toContain(t.userFile);
    expect(error.message).toContain(sentence);
  });

  it('says the line and column when a settings file is not JSON', async () => {
    t = tempHome();
    t.write(t.workspaceFile, '{\n  "model": "m",\n  "maxTurns": 3,\n}\n');
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true }));
    expect(error.message).toContain(`${t.workspaceFile}:4:1`);
    expect(error.message).toMatch(/trailing comma/);
  });

  it("ignores an untrusted repository's invalid values and unreadable files, naming them, and keeps its valid ones (issue 53 item 8)", async () => {
    t = tempHome();
    t.write(t.workspaceFile, { tools: { defer: true, deferThreshold: 5 }, permissions: { mode: 'sometimes' }, sop: 'Be brief.' });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.tools.defer).toBe('auto');
    expect(loaded.values.tools.deferThreshold).toBe(5);
    expect(loaded.values.sop).toBe('Be brief.');
    expect(loaded.values.permissions.mode).toBe('default');
    expect(loaded.ignored.map((request) => request.key).sort()).toEqual(['permissions.mode', 'tools.defer']);
    expect(loaded.warnings.at(-1)).toMatch(/where they loosen Beans or are not valid: .*"tools\.defer" must be "auto", "always" or "never"/);
    t.write(t.workspaceFile, '{"model": ');
    const broken = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(broken.ignored).toEqual([expect.objectContaining({ key: '', problem: expect.stringContaining('not valid JSON') })]);
  });

  it('finds the spot even where the JSON parser gives no position', async () => {
    t = tempHome();
    t.write(t.userFile, '{\n  "ui": {\n    "markdown": tru\n  }\n}\n');
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env }));
    expect(error.message).toContain(`${t.userFile}:3:17`);
    expect(error.message).toContain('unexpected tru (did you mean true?)');
  });

  it('reports a file cut short at its end', async () => {
    t = tempHome();
    t.write(t.userFile, '{\n  "model": "m",\n');
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env }));
    expect(error.message).toContain(`${t.userFile}:3:1`);
    expect(error.message).toContain('ends too early');
  });

  it('requires a JSON object at the top', async () => {
    t = tempHome();
    t.write(t.userFile, '["model"]');
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: t.env }));
    expect(error.message).toContain('must hold a JSON object');
  });

  it('warns about unknown keys with the file and carries on', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { modle: 'x', permissions: { mode: 'plan', alow: ['read_file'] }, future: { thing: 1 } });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.permissions.mode).toBe('plan');
    expect(loaded.warnings).toHaveLength(3);
    expect(loaded.warnings[0]).toContain(t.workspaceFile);
    expect(loaded.warnings[0]).toContain('unknown setting "modle"');
    expect(loaded.warnings[0]).toContain('did you mean "model"');
    expect(loaded.warnings[1]).toContain('"permissions.alow"');
    expect(loaded.warnings[1]).toContain('did you mean "permissions.allow"');
    expect(loaded.warnings[2]).toContain('"future"');
  });

  it('treats an empty settings file as no settings', async () => {
    t = tempHome();
    t.write(t.userFile, '\n');
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.files).toEqual([t.userFile]);
    expect(loaded.values.permissions.mode).toBe('default');
  });

  it('names the variable when an environment value is wrong', async () => {
    t = tempHome();
    const error = await configError(loadConfig({ workspaceRoot: t.workspace, env: { ...t.env, BEANS_MAX_TURNS: 'lots' } }));
    expect(error.message).toContain('BEANS_MAX_TURNS must be a positive whole number');
    expect(error.message).toContain('"lots"');
  });

  it('ignores empty environment variables', async () => {
    t = tempHome();
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: { ...t.env, BEANS_PROVIDER: '', OLLAMA_HOST: '' } });
    expect(loaded.values.provider).toBeUndefined();
    expect(loaded.values.ollama.host).toBe('http://127.0.0.1:11434');
  });
});
