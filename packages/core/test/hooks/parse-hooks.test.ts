import { describe, expect, it } from 'vitest';
import { parseHooks } from '../../src/hooks/load-hooks.js';
import { hooksSchema } from '../../src/hooks/schema.js';
import { PARSE_ONCE } from '../../src/parse-once.js';
import { findSettingKey } from '../../src/config/setting-keys.js';
import { fitsPlain } from '../../src/config/plain-schema.js';

describe("parseHooks (hooks.json and the settings files' hooks, as the hooks loader reads them)", () => {
  it('gives what hooksSchema() gives: the same hooks, unknown keys (and the settings-only env) dropped, the same failures', () => {
    const group = (extra: Record<string, unknown> = {}) => ({ hooks: [{ timeout: 5, command: 'true', type: 'command', note: 1 }], matcher: 'shell', ...extra });
    const samples: unknown[] = [
      { PostToolUse: [group()], PreToolUse: [group(), { hooks: [] }], Bogus: [], env: { passThrough: ['A'] } },
      { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] },
      {},
      { PreToolUse: [group({ matcher: 7 })] },
      { PreToolUse: [{ matcher: 'shell' }] },
      { PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: '' }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] },
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: undefined }] }] },
      { PreToolUse: 'true' },
      [],
      null,
    ];
    for (const value of samples) {
      const zod = hooksSchema().safeParse(value, PARSE_ONCE);
      const ours = parseHooks(value);
      expect(ours.success, JSON.stringify(value)).toBe(zod.success);
      if (zod.success && ours.success) {
        expect(ours.data, JSON.stringify(value)).toStrictEqual(zod.data);
        expect(JSON.stringify(ours.data)).toBe(JSON.stringify(zod.data));
      } else {
        expect((ours as typeof zod).error!.issues).toEqual(zod.error!.issues);
      }
    }
    // The first three take the shortcut (the settings' plain hooks data, which parseHooks uses).
    const plain = findSettingKey('hooks')!.plain!;
    expect(samples.slice(0, 3).every((value) => fitsPlain(plain, value))).toBe(true);
    expect(Object.keys(parseHooks(samples[0]).data!)).toEqual(['PreToolUse', 'PostToolUse']);
  });
});
