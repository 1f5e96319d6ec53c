import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { helpGroups, type HelpGroup } from '../../src/ui/commands.js';
import { createFakeHost } from './fake-host.js';
import { closeChats, startChat } from './harness.js';

// Issue 60: the README's tables of slash commands and keys are the table /help prints. Both come from
// helpGroups (src/ui/commands.ts): scripts/docs.mjs writes the README's from it, and this reads what
// /help draws on a wide terminal and finds every row of the README's tables in it, in order.
const README = readFileSync(path.resolve(import.meta.dirname, '../../../../README.md'), 'utf8');

function readmeRows(part: string): { name: string; description: string }[] {
  const begin = README.indexOf(`<!-- BEGIN GENERATED ${part}:`);
  const text = README.slice(README.indexOf('\n', begin) + 1, README.indexOf(`<!-- END GENERATED ${part} -->`));
  return text
    .split('\n')
    .slice(2)
    .filter((line) => line.startsWith('| '))
    .map((line) => {
      const cells = line
        .slice(2, -2)
        .split(/(?<!\\) \| /)
        .map((cell) => cell.replaceAll('\\|', '|').replaceAll('\\<', '<'));
      return { name: cells[0]!.replace(/^`+ ?| ?`+$/g, ''), description: cells[1]! };
    });
}

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await closeChats();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("/help and the README's tables", () => {
  test("the README's tables are helpGroups' commands and keys (what /help prints with no plugins)", () => {
    const rows = (title: string) => helpGroups([]).find((group: HelpGroup) => group.title === title)!.rows;
    expect(readmeRows('slash-commands')).toEqual(rows('Commands'));
    expect(readmeRows('keys')).toEqual(rows('Keys'));
  });

  test('every command and key of the README is a row /help prints, with the same description, in the same order', async () => {
    const commands = readmeRows('slash-commands');
    const keys = readmeRows('keys');
    expect(commands.length).toBeGreaterThan(30);
    expect(keys.length).toBeGreaterThan(15);
    const fake = createFakeHost({ turns: [] });
    cleanups.push(fake.cleanup);
    // Wide enough that no description wraps.
    const chat = startChat(fake.host, { columns: 240, rows: 120 });
    await chat.submit('/help');
    await chat.waitFor((frame) => frame.includes('Keys'), '/help');
    const printed = chat.output();
    let from = 0;
    for (const row of [...commands, ...keys]) {
      const at = printed.slice(from).search(new RegExp(`\\n\\s+${escape(row.name)}\\s+${escape(row.description)}\\s*\\n`));
      expect(at, `/help prints "${row.name}  ${row.description}" after the rows before it`).not.toBe(-1);
      from += at + 1;
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
