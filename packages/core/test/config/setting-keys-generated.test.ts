import { describe, expect, it } from 'vitest';
import { findSettingKey, leafSettingKeys, settingKeysOfSchema } from '../../src/config/setting-keys.js';
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
});
