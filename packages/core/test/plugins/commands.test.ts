import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTIN_COMMAND_NAMES,
  expandCommand,
  expandSlashInput,
  loadPlugins,
  parseSlashInput,
  reportBuiltinClashes,
  splitArguments,
  substituteArguments,
  type PluginCatalog,
} from '../../src/plugins/index.js';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/plugins');

describe('substituteArguments', () => {
  it('replaces $ARGUMENTS with everything the user typed after the name', () => {
    expect(substituteArguments('Review PR $ARGUMENTS carefully.', '42 --strict')).toBe('Review PR 42 --strict carefully.');
  });

  it('appends the arguments when the body has no placeholder', () => {
    expect(substituteArguments('Summarize the diff.', 'only src/')).toBe('Summarize the diff.\n\nARGUMENTS: only src/');
    expect(substituteArguments('Summarize the diff.', '')).toBe('Summarize the diff.');
  });

  it('fills $1..$9 from shell-like words and leaves missing ones empty', () => {
    expect(substituteArguments('Move $1 to $2 ($3)', '"my file.txt" dest/')).toBe('Move my file.txt to dest/ ()');
  });

  it('does not read $10 as $1 followed by 0', () => {
    expect(substituteArguments('cost: $10 for $1', 'a')).toBe('cost: $10 for a');
  });

  it('leaves fenced code blocks and inline code untouched', () => {
    const body = ['Compare $1 with $2.', '```bash', 'git diff "$1" "$2"', '```', '~~~', 'echo $ARGUMENTS', '~~~', 'Use `git log $1..$2` too.'].join('\n');
    expect(substituteArguments(body, 'main feature')).toBe(
      ['Compare main with feature.', '```bash', 'git diff "$1" "$2"', '```', '~~~', 'echo $ARGUMENTS', '~~~', 'Use `git log $1..$2` too.'].join('\n'),
    );
  });

  it('ends a fence only at a closing run of the same character and length', () => {
    const body = ['````md', '```', '$1 inside', '```', '````', 'after $1'].join('\n');
    expect(substituteArguments(body, 'X')).toBe(['````md', '```', '$1 inside', '```', '````', 'after X'].join('\n'));
  });

  it('appends arguments when the only placeholders sit inside code', () => {
    expect(substituteArguments('Run:\n```\nmake $1\n```', 'test')).toBe('Run:\n```\nmake $1\n```\n\nARGUMENTS: test');
  });
});

describe('splitArguments', () => {
  it('splits like a shell: quotes group words, backslashes escape', () => {
    expect(splitArguments(`a "b c" 'd "e"' f\\ g  "h\\"i"`)).toEqual(['a', 'b c', 'd "e"', 'f g', 'h"i']);
    expect(splitArguments('  ')).toEqual([]);
    expect(splitArguments('""')).toEqual(['']);
  });
});

describe('parseSlashInput', () => {
  it('reads /name and /plugin:name with arguments, and ignores paths', () => {
    expect(parseSlashInput('/review 42')).toEqual({ name: 'review', args: '42' });
    expect(parseSlashInput('  /code-development:review  a b ')).toEqual({ name: 'code-development:review', args: 'a b' });
    expect(parseSlashInput('/usr/bin/env is odd')).toBeUndefined();
    expect(parseSlashInput('review 42')).toBeUndefined();
  });
});

describe('expandCommand', () => {
  let catalog: PluginCatalog;
  beforeAll(async () => {
    catalog = await loadPlugins({ roots: [path.join(fixtures, 'root-a'), path.join(fixtures, 'root-b')] });
  });

  it('expands /name args into the command body with the arguments filled in', async () => {
    const expansion = await expandCommand('/hint-list src/app.ts', catalog);
    expect(expansion?.prompt).toBe('Explain src/app.ts in plain words.');
    expect(expansion?.display).toBe('/hint-list src/app.ts');
    expect(expansion?.command.name).toBe('hint-list');
  });

  it('leaves $1 in fenced shell code of a real command file alone', async () => {
    const expansion = await expandCommand('/shell-args main feature', catalog);
    expect(expansion?.prompt).toContain('Compare main with feature and explain what changed. All arguments: main feature.');
    expect(expansion?.prompt).toContain('git diff "$1" "$2" --stat');
    expect(expansion?.prompt).toContain('echo $ARGUMENTS');
    expect(expansion?.prompt).toContain('`git log $1..$2`');
  });

  it('reaches a shadowed command as /plugin:name', async () => {
    expect((await expandCommand('/plain', catalog))?.prompt).toMatch(/^# Summarize the uncommitted changes/);
    expect((await expandCommand('/dupes:plain x', catalog))?.prompt).toBe('Second.\n\nARGUMENTS: x');
  });

  it('returns undefined for unknown commands and for built-in names', async () => {
    expect(await expandCommand('/nope', catalog)).toBeUndefined();
    expect(await expandCommand('/help', catalog)).toBeUndefined();
    expect((await expandCommand('/dupes:help', catalog))?.prompt).toBe('Plugin help.');
  });

  it('reports plugin commands hidden by built-in commands, once', () => {
    const clashes = reportBuiltinClashes(catalog, BUILTIN_COMMAND_NAMES);
    expect(clashes).toEqual([
      { path: path.join(fixtures, 'root-b/dupes/commands/help.md'), message: expect.stringMatching(/hidden by Beans' built-in \/help; run it as \/dupes:help/) },
    ]);
    expect(catalog.problems).toContainEqual(clashes[0]);
    expect(reportBuiltinClashes(catalog)).toEqual([]);
  });

  it('falls back to a skill of the same name when no command has it', async () => {
    const skill = await expandSlashInput('/with-rules tidy up utils.ts', catalog);
    expect(skill).toMatchObject({ kind: 'skill', origin: 'skill', display: '/with-rules tidy up utils.ts' });
    expect(skill?.prompt).toContain('# Code rules');
    expect(skill?.prompt).toContain("The user's request: tidy up utils.ts");
    const command = await expandSlashInput('/plain', catalog);
    expect(command).toMatchObject({ kind: 'command', origin: 'command' });
    expect(await expandSlashInput('/clear', catalog)).toBeUndefined();
  });
});
