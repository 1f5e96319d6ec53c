import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { setConfigValue } from '../../src/config/set-config.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { tempHome } from './temp-home.js';

let t: ReturnType<typeof tempHome>;
afterEach(() => t?.cleanup());

const read = (file: string) => readFileSync(file, 'utf8');

describe('setConfigValue', () => {
  it('changes one key and keeps the other keys, their order and 4-space indentation', async () => {
    t = tempHome();
    const before =
      '{\n    "model": "llama3",\n    "permissions": {\n        "mode": "default",\n        "allow": ["read_file"]\n    },\n    "custom": {"kept": true},\n    "debug": false\n}\n';
    t.write(t.workspaceFile, before);
    await setConfigValue({ file: t.workspaceFile, key: 'permissions.mode', value: 'yolo' });
    expect(read(t.workspaceFile)).toBe(
      '{\n    "model": "llama3",\n    "permissions": {\n        "mode": "yolo",\n        "allow": [\n            "read_file"\n        ]\n    },\n    "custom": {\n        "kept": true\n    },\n    "debug": false\n}\n',
    );
  });

  it('adds a new key at the end of its section, keeping tabs and a missing final newline', async () => {
    t = tempHome();
    t.write(t.userFile, '{\n\t"ui": {\n\t\t"theme": "dark"\n\t},\n\t"model": "m"\n}');
    await setConfigValue({ file: t.userFile, key: 'ui.showCost', value: 'false' });
    expect(read(t.userFile)).toBe('{\n\t"ui": {\n\t\t"theme": "dark",\n\t\t"showCost": false\n\t},\n\t"model": "m"\n}');
  });

  it('keeps Windows line endings', async () => {
    t = tempHome();
    t.write(t.userFile, '{\r\n  "model": "m"\r\n}\r\n');
    await setConfigValue({ file: t.userFile, key: 'maxTurns', value: '12' });
    expect(read(t.userFile)).toBe('{\r\n  "model": "m",\r\n  "maxTurns": 12\r\n}\r\n');
  });

  it('creates the file and its folder when missing, with 2-space indentation', async () => {
    t = tempHome();
    expect(existsSync(path.dirname(t.userFile))).toBe(false);
    const result = await setConfigValue({ file: t.userFile, key: 'ollama.host', value: 'http://gpu-box:11434' });
    expect(result.created).toBe(true);
    expect(read(t.userFile)).toBe('{\n  "ollama": {\n    "host": "http://gpu-box:11434"\n  }\n}\n');
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(loaded.values.ollama.host).toBe('http://gpu-box:11434');
  });

  it('converts text to the setting type: numbers, booleans, comma lists, JSON lists', async () => {
    t = tempHome();
    const file = t.workspaceFile;
    expect((await setConfigValue({ file, key: 'maxBudgetUsd', value: '2.5' })).value).toBe(2.5);
    expect((await setConfigValue({ file, key: 'debug', value: 'true' })).value).toBe(true);
    expect((await setConfigValue({ file, key: 'permissions.allow', value: 'read_file, shell(git *)' })).value).toEqual(['read_file', 'shell(git *)']);
    expect((await setConfigValue({ file, key: 'plugins.disabled', value: '["a", "b,c"]' })).value).toEqual(['a', 'b,c']);
    expect((await setConfigValue({ file, key: 'plugins.dirs', value: '' })).value).toEqual([]);
    expect((await setConfigValue({ file, key: 'ui', value: '{"theme": "light"}' })).value).toEqual({ theme: 'light' });
    expect(JSON.parse(read(file))).toEqual({
      maxBudgetUsd: 2.5,
      debug: true,
      permissions: { allow: ['read_file', 'shell(git *)'] },
      plugins: { disabled: ['a', 'b,c'], dirs: [] },
      ui: { theme: 'light' },
    });
  });

  it('reports the previous value', async () => {
    t = tempHome();
    t.write(t.userFile, { maxTurns: 5 });
    const result = await setConfigValue({ file: t.userFile, key: 'maxTurns', value: '6' });
    expect(result).toMatchObject({ previous: 5, value: 6, created: false });
  });

  it('refuses an unknown key and suggests the nearest one, leaving the file alone', async () => {
    t = tempHome();
    t.write(t.userFile, { model: 'm' });
    const before = read(t.userFile);
    const error = await setConfigValue({ file: t.userFile, key: 'permisions.mode', value: 'yolo' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('Unknown setting "permisions.mode"');
    expect((error as Error).message).toContain('Did you mean "permissions.mode"?');
    expect(read(t.userFile)).toBe(before);

    const short = await setConfigValue({ file: t.userFile, key: 'theme', value: 'dark' }).catch((e: unknown) => e);
    expect((short as Error).message).toContain('Did you mean "ui.theme"?');
  });

  it('refuses unknown keys inside a JSON object value', async () => {
    t = tempHome();
    const error = await setConfigValue({ file: t.userFile, key: 'ui', value: '{"colour": "red"}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('"ui.colour"');
    expect(existsSync(t.userFile)).toBe(false);
  });

  it.each([
    ['maxTurns', 'many', '"maxTurns" must be a positive whole number, not the string "many"'],
    ['maxTurns', '-2', '"maxTurns" must be a positive whole number, not the number -2'],
    ['ui.markdown', 'maybe', '"ui.markdown" must be true or false, not the string "maybe"'],
    ['permissions.mode', 'sometimes', '"permissions.mode" must be one of "default", "auto-edit", "yolo", "plan"'],
    ['plugins.dirs', '[1]', '"plugins.dirs[0]" must be a string, not the number 1'],
  ])('refuses a wrong type for %s = %s', async (key, value, sentence) => {
    t = tempHome();
    const error = await setConfigValue({ file: t.userFile, key, value }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(sentence);
    expect(existsSync(t.userFile)).toBe(false);
  });

  it('does not overwrite a settings file that is not JSON', async () => {
    t = tempHome();
    t.write(t.userFile, '{ "model": oops }');
    const error = await setConfigValue({ file: t.userFile, key: 'model', value: 'm' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`${t.userFile}:1:12: the settings file is not valid JSON: unexpected oops (text values need double quotes)`);
    expect(read(t.userFile)).toBe('{ "model": oops }');
  });
});
