import { describe, expect, it } from 'vitest';
import {
  acceptedValue,
  acceptedWithoutSchema,
  allSettingKeys,
  findSettingKey,
  leafSettingKeys,
  schemaOfKey,
  settingKeysOfSchema,
  type SettingKey,
} from '../../src/config/setting-keys.js';
import { SETTING_SECTIONS, settingSection } from '../../src/config/schema.js';
import { PARSE_ONCE } from '../../src/parse-once.js';
import { fitsPlain, plainValue } from '../../src/config/plain-schema.js';
import { SETTING_KEYS } from '../../src/config/setting-keys.generated.js';
import { checkSettingValue, validateSettings } from '../../src/config/validate.js';

const REGENERATE = 'run: pnpm run --silent build && node scripts/precompute.mjs';

describe('settings keys computed at build time', () => {
  it('match the settings schema, key by key and in its order', () => {
    expect(SETTING_KEYS, REGENERATE).toEqual(settingKeysOfSchema());
  });

  it('are what lookups and listings use', () => {
    expect(leafSettingKeys().map((k) => k.key)).toEqual(SETTING_KEYS.filter((k) => k.kind !== 'object').map((k) => k.key));
    expect(findSettingKey('permissions.mode')).toBe(SETTING_KEYS.find((k) => k.key === 'permissions.mode'));
  });

  it('check a value for one key against that key in the schema', () => {
    const maxTurns = findSettingKey('maxTurns')!;
    expect(checkSettingValue(maxTurns, 3)).toBeUndefined();
    expect(checkSettingValue(maxTurns, 0)).toEqual({ at: 'maxTurns', expected: 'a positive whole number', got: 'the number 0' });
    const allow = findSettingKey('permissions.allow')!;
    expect(checkSettingValue(allow, ['shell(git *)', 7])).toMatchObject({ at: 'permissions.allow[1]', expected: 'a string' });
  });

  it('accept without zod only values zod accepts (a variable or flag then skips building the schema)', () => {
    const quick = leafSettingKeys().filter((key) => key.accepts !== undefined);
    // provider, model, the endpoints, enums such as permissions.mode, booleans such as ui.vim...
    expect(quick.map((key) => key.key)).toEqual(expect.arrayContaining(['provider', 'model', 'ollama.host', 'permissions.mode']));
    const samples: unknown[] = ['', ' ', 'x', 'ollama', 'yolo', 'auto', '30m', 'http://127.0.0.1:1', true, false, 0, 1, null, undefined, [], {}, ['x']];
    for (const key of quick) {
      for (const value of [...samples, ...(key.options ?? [])]) {
        const zodSays = schemaOfKey(key.key).safeParse(value).success;
        expect(acceptedWithoutSchema(key, value), `${key.key} = ${JSON.stringify(value)}`).toBe(zodSays);
      }
    }
    // A value it does not accept still gets zod's words.
    expect(checkSettingValue(findSettingKey('provider')!, '')).toEqual({
      at: 'provider',
      expected: findSettingKey('provider')!.expected,
      got: 'the string ""',
    });
    expect(checkSettingValue(findSettingKey('permissions.mode')!, 'sometimes')).toMatchObject({ at: 'permissions.mode' });
  });

  it('take lists and objects of such values as zod gives them back: lists copied, objects in schema order without unknown keys', () => {
    const quick = allSettingKeys().filter((key) => key.accepts !== undefined);
    expect(quick.map((key) => key.key)).toEqual(expect.arrayContaining(['permissions', 'permissions.allow', 'plugins', 'ui']));
    const children = (key: SettingKey) =>
      allSettingKeys().filter((child) => child.key.startsWith(`${key.key}.`) && !child.key.slice(key.key.length + 1).includes('.'));
    const valid = (key: SettingKey): unknown => {
      switch (key.accepts) {
        case 'boolean':
          return true;
        case 'option':
          return key.options![key.options!.length - 1];
        case 'textList':
          return ['a', 'b c'];
        case 'object':
          // Written in reverse schema order, with a key the schema lacks.
          return Object.fromEntries([
            ['notASetting', 1],
            ...children(key)
              .reverse()
              .map((child) => [child.key.split('.').pop()!, valid(child)]),
          ]);
        default:
          return 'x';
      }
    };
    for (const key of quick) {
      const good = valid(key);
      // eslint-disable-next-line no-sparse-arrays -- a sparse array is one of the odd values a settings file can hold
      const samples: unknown[] = [good, '', 'x', true, 0, null, [], ['a', 1], [, 'a'], {}, { notASetting: true }, new Date(0)];
      if (key.accepts === 'object') {
        for (const child of children(key))
          samples.push({ ...(good as object), [child.key.split('.').pop()!]: 42 }, { [child.key.split('.').pop()!]: undefined });
      }
      for (const value of samples) {
        const zod = schemaOfKey(key.key).safeParse(value, PARSE_ONCE);
        if (acceptedWithoutSchema(key, value)) {
          expect(zod.success, `${key.key} = ${JSON.stringify(value)}`).toBe(true);
          const copy = acceptedValue(key, value);
          expect(copy, `${key.key} = ${JSON.stringify(value)}`).toStrictEqual(zod.data);
          expect(Object.keys(copy as object), key.key).toEqual(Object.keys(zod.data as object));
        }
      }
      expect(acceptedWithoutSchema(key, good), key.key).toBe(true);
    }
  });

  it('check a settings file as zod alone did: the same settings, the same errors', () => {
    const file = {
      provider: 'ollama',
      model: 'qwen3',
      permissions: { deny: ['shell(rm *)'], allow: ['read_file', 'shell(git *)'], mode: 'auto-edit', later: true },
      plugins: { dirs: ['tools/plugins'] },
      ui: {},
      maxTurns: 30,
      hooks: { PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: 'true' }] }] },
    };
    const byZod = Object.fromEntries(
      SETTING_SECTIONS.filter((key) => Object.hasOwn(file, key)).map((key) => [
        key,
        settingSection(key)!.safeParse((file as Record<string, unknown>)[key], PARSE_ONCE).data,
      ]),
    );
    const { settings, warnings } = validateSettings(file, '/s.json');
    expect(settings).toStrictEqual(byZod);
    expect(Object.keys(settings.permissions!)).toEqual(['mode', 'allow', 'deny']);
    expect(settings.permissions!.allow).not.toBe(file.permissions.allow);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^\/s\.json: unknown setting "permissions\.later" is ignored/);
    expect(() => validateSettings({ permissions: { allow: ['read_file', 7], mode: 'sometimes' } }, '/s.json')).toThrow(
      'Invalid settings in /s.json: "permissions.mode" must be one of "default", "auto-edit", "yolo", "plan", not the string "sometimes"; "permissions.allow[1]" must be a string, not the number 7. Fix the file, or remove the keys.',
    );
  });

  it('take a section written down as plain data (hooks) as zod gives it back, and leave anything else to zod', () => {
    const plain = allSettingKeys().filter((key) => key.plain !== undefined);
    expect(plain.map((key) => key.key)).toContain('hooks');
    // z.int() and z.url() carry their format outside zod's checks: such keys are never plain.
    expect(findSettingKey('maxTurns')!.plain).toBeUndefined();
    const group = (extra: Record<string, unknown> = {}) => ({ hooks: [{ timeout: 5, command: 'true', type: 'command', note: 1 }], matcher: 'shell', ...extra });
    const hookSamples: unknown[] = [
      { PostToolUse: [group()], PreToolUse: [group(), { hooks: [] }], Bogus: [] },
      { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] },
      {},
      { PreToolUse: [] },
      { PreToolUse: [group({ matcher: 7 })] },
      { PreToolUse: [{ matcher: 'shell' }] },
      { PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: '' }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: 0 }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: '5' }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: Number.POSITIVE_INFINITY }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: undefined }] }] },
      // eslint-disable-next-line no-sparse-arrays -- a hole in the hook list, on purpose
      { PreToolUse: [{ hooks: [, { type: 'command', command: 'x' }] }] },
      { PreToolUse: 'true' },
      { PreToolUse: [group()], Stop: null },
      [],
      null,
      'hooks',
    ];
    for (const key of plain) {
      const samples = key.key === 'hooks' ? hookSamples : [1, 0.5, 0, -1, Number.NaN, '1', true, null, undefined, []];
      for (const value of samples) {
        const zod = schemaOfKey(key.key).safeParse(value, PARSE_ONCE);
        if (fitsPlain(key.plain!, value)) {
          expect(zod.success, `${key.key} = ${JSON.stringify(value)}`).toBe(true);
          expect(plainValue(key.plain!, value), `${key.key} = ${JSON.stringify(value)}`).toStrictEqual(zod.data);
          expect(JSON.stringify(plainValue(key.plain!, value))).toBe(JSON.stringify(zod.data));
        }
      }
    }
    expect(fitsPlain(findSettingKey('hooks')!.plain!, hookSamples[0])).toBe(true);
    expect(fitsPlain(findSettingKey('hooks')!.plain!, hookSamples[1])).toBe(true);
    // A settings file with hooks gets zod's value and zod's error.
    const file = { hooks: hookSamples[0] } as Record<string, unknown>;
    expect(validateSettings(file, '/s.json').settings).toStrictEqual({ hooks: settingSection('hooks')!.safeParse(file.hooks, PARSE_ONCE).data });
    expect(() => validateSettings({ hooks: hookSamples[8] }, '/s.json')).toThrow(
      'Invalid settings in /s.json: "hooks.PreToolUse[0].hooks[0].timeout" must be a positive number of seconds, not the number 0. Fix the file, or remove the key.',
    );
  });
});
