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

  it('fills $0..$9 and $ARGUMENTS[n] 0-based from shell-like words, as Claude Code does', () => {
    expect(substituteArguments('Move $0 to $1 ($ARGUMENTS[1])', '"my file.txt" dest/')).toBe('Move my file.txt to dest/ (dest/)');
  });

  it('leaves a positional placeholder with no argument as written', () => {
    expect(substituteArguments('Move $0 to $2 and $ARGUMENTS[5]', 'a')).toBe('Move a to $2 and $ARGUMENTS[5]');
  });

  it('does not read $10 as $1 followed by 0', () => {
    expect(substituteArguments('cost: $10 for $0', 'a')).toBe('cost: $10 for a');
  });

  it('substitutes $ARGUMENTS inside fenced code and inline code too', () => {
    const body = ['Compare:', '```bash', 'gh pr view $ARGUMENTS', '```', 'Use `git log $ARGUMENTS` too.'].join('\n');
    expect(substituteArguments(body, '42')).toBe(['Compare:', '```bash', 'gh pr view 42', '```', 'Use `git log 42` too.'].join('\n'));
  });

  it('keeps an escaped \\$ literal', () => {
    expect(substituteArguments('Write \\$ARGUMENTS or \\$0 literally; got $ARGUMENTS', 'x')).toBe('Write $ARGUMENTS or $0 literally; got x');
  });

  it('does not append arguments when a placeholder sits inside code', () => {
    expect(substituteArguments('Run:\n```\nmake $ARGUMENTS\n```', 'test')).toBe('Run:\n```\nmake test\n```');
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

  it('fills placeholders in fenced shell code of a real command file, and keeps escaped ones', async () => {
    const expansion = await expandCommand('/shell-args main feature', catalog);
    expect(expansion?.prompt).toContain('Compare main with feature and explain what changed. All arguments: main feature.');
    expect(expansion?.prompt).toContain('git diff "main" "feature" --stat');
    expect(expansion?.prompt).toContain('do echo "$1"; done');
    expect(expansion?.prompt).toContain('echo main feature');
    expect(expansion?.prompt).toContain('`git log main..feature`');
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
      {
        path: path.join(fixtures, 'root-b/dupes/commands/help.md'),
        message: expect.stringMatching(/hidden by Beans' built-in \/help; run it as \/dupes:help/),
      },
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

describe('plugin files that run code when used (issue 53 item 2)', () => {
  it('finds allowed-tools, hooks, MCP servers and ! lines, and leaves prose alone', async () => {
    const { carriesRunnableParts, isPluginDefinitionPath } = await import('../../src/plugins/runnable-file.js');
    for (const text of [
      '---\nallowed-tools: Bash(git add:*)\n---\nbody',
      '---\nallowed_tools: [Bash]\n---\nbody',
      '---\ndescription: d\nhooks:\n  Stop: []\n---\n',
      '---\nmcpServers: {x: {command: y}}\n---\n',
      '---\ndescription: broken: yaml: here\nallowed-tools: Bash\n---\n',
      '---\nallowed-tools: Bash\nno closing line',
      'Status: !`git status`',
      '```!\nmake deploy\n```',
      '(see !`date`)',
    ])
      expect(carriesRunnableParts(text), text).toBe(true);
    for (const text of [
      '---\ndescription: Plain\n---\nSummarize `git log`. Hello!',
      'Hello!`x`',
      '![a picture](x.png)',
      '```bash\n!ls\n```',
      'allowed-tools: in the body is prose',
    ])
      expect(carriesRunnableParts(text), text).toBe(false);
    for (const place of ['plugins/x/commands/a.md', 'plugins/x/docs/a.md', 'tools/p/skills/s/SKILL.md', 'a/agents/b.md', 'custom/c.md'])
      expect(isPluginDefinitionPath(place, ['custom']), place).toBe(true);
    for (const place of ['docs/a.md', 'README.md', 'plugins/README.md', 'plugins/x/commands/a.txt']) expect(isPluginDefinitionPath(place), place).toBe(false);
  });
});

describe('the plugin write guard (issue 53 item 2)', () => {
  it('judges the file as the call leaves it: a new file by edit_file, an edit that completes a ! line, an append', async () => {
    const { mkdtempSync, mkdirSync, realpathSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { createPluginWriteGuard } = await import('../../src/plugins/runnable-file.js');
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'beans-guard-')));
    mkdirSync(path.join(root, 'plugins/x/commands'), { recursive: true });
    writeFileSync(path.join(root, 'plugins/x/commands/a.md'), 'Say it: `date`\n');
    const guard = createPluginWriteGuard({ root });
    const edit = (file: string, input: Record<string, unknown>) =>
      guard({ toolName: 'edit_file', input: { path: file, ...input }, written: file, relative: file });
    expect(await edit('plugins/x/commands/new.md', { old_string: '', new_string: 'Run !`make`' })).toMatch(/runs commands/);
    expect(await edit('plugins/x/commands/new.md', { old_string: '', new_string: 'Plain words' })).toBeUndefined();
    expect(await edit('plugins/x/commands/a.md', { old_string: 'it: ', new_string: 'it: !' })).toMatch(/runs commands/);
    expect(await edit('plugins/x/commands/a.md', { old_string: 'Say', new_string: 'Tell' })).toBeUndefined();
    const append = await guard({
      toolName: 'write_file',
      input: { path: 'plugins/x/commands/a.md', content: '\n```!\nls\n```\n', append: true },
      relative: 'plugins/x/commands/a.md',
    });
    expect(append).toMatch(/runs commands/);
  });
});
