import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS } from '../../packages/core/src/config/setting-keys.generated.ts';
import { ROOT, generatedParts, listedSettingKeys, readPart, settingDoc } from '../../scripts/docs/generate.mjs';
import { SETTING_DOCS } from '../../scripts/docs/settings-docs.mjs';

// Issue 60: the parts of the docs that repeat the code are generated from it (scripts/docs.mjs):
// the README's slash commands and keys (what /help prints), every setting of the schema, and every
// command's --help. Regenerate with `pnpm run --silent build && node scripts/docs.mjs`.
describe('generated docs', async () => {
  const parts = await generatedParts();

  it.each(parts.map((part) => [`${part.file} (${part.name})`, part] as const))('%s holds what scripts/docs.mjs writes', (_label, part) => {
    const text = readFileSync(path.join(ROOT, part.file), 'utf8');
    const found = readPart(text, part.name);
    expect(found, `${part.file} has the markers of "${part.name}"`).toBeDefined();
    expect(found, `${part.file} (${part.name}) is out of date: run pnpm run --silent build && node scripts/docs.mjs`).toBe(part.content);
  });

  it('every setting of the schema is documented, and nothing else is', () => {
    const listed = listedSettingKeys(SETTING_KEYS).map((key) => key.key);
    expect(listed.filter((key) => !settingDoc(key))).toEqual([]);
    const matches = (entry: string) => (entry.endsWith('.*') ? listed.some((key) => key.startsWith(entry.slice(0, -1))) : listed.includes(entry));
    expect(Object.keys(SETTING_DOCS).filter((entry) => !matches(entry))).toEqual([]);
  });

  it('the settings table lists every key of the schema with what it takes', () => {
    const table = parts.find((part) => part.name === 'settings')!.content;
    for (const key of listedSettingKeys(SETTING_KEYS)) expect(table).toContain(`| \`${key.key}\` | ${key.expected.replaceAll('|', '\\|')} |`);
  });
});
