import { describe, expect, it } from 'vitest';
import { acceptedWithoutSchema, findSettingKey, leafSettingKeys, schemaOfKey, settingKeysOfSchema } from '../../src/config/setting-keys.js';
import { SETTING_KEYS } from '../../src/config/setting-keys.generated.js';
import { checkSettingValue } from '../../src/config/validate.js';

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
    expect(checkSettingValue(findSettingKey('provider')!, '')).toEqual({ at: 'provider', expected: findSettingKey('provider')!.expected, got: 'the string ""' });
    expect(checkSettingValue(findSettingKey('permissions.mode')!, 'sometimes')).toMatchObject({ at: 'permissions.mode' });
  });
});
