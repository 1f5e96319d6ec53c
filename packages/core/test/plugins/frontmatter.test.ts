import { describe, expect, it } from 'vitest';
import { asArgumentHint, asList, asText, firstBodyLine, parseFrontmatter, splitFrontmatter } from '../../src/plugins/frontmatter.js';

describe('parseFrontmatter', () => {
  it('reads valid YAML frontmatter and returns the body after it', () => {
    const parsed = parseFrontmatter('---\nname: a\ndescription: Does a\n---\n\nBody text\n');
    expect(parsed.data).toEqual({ name: 'a', description: 'Does a' });
    expect(parsed.body.trim()).toBe('Body text');
    expect(parsed.problem).toBeUndefined();
  });

  it('treats only the first --- block as frontmatter', () => {
    const parsed = parseFrontmatter('---\nname: first\n---\nIntro\n---\nname: second\n---\nMore');
    expect(parsed.data).toEqual({ name: 'first' });
    expect(parsed.body).toBe('Intro\n---\nname: second\n---\nMore');
  });

  it('recovers keys line by line when an unquoted ": " makes YAML reject the block', () => {
    const parsed = parseFrontmatter('---\nname: triage\ndescription: Triage an issue: label it\nmodel: haiku\n---\nBody');
    expect(parsed.data).toEqual({ name: 'triage', description: 'Triage an issue: label it', model: 'haiku' });
    expect(parsed.problem).toMatch(/not valid YAML.*recovered name, description, model line by line/);
    expect(parsed.body).toBe('Body');
  });

  it('keeps <example> blocks inside a multi-line description, even their "user:" lines', () => {
    const yaml = [
      'name: guard',
      'description: Use when routes change. Case: a new route.',
      '<example>',
      'Context: a POST route was added',
      'user: "check it"',
      '</example>',
      'tools: Read, Grep',
    ].join('\n');
    const parsed = parseFrontmatter(`---\n${yaml}\n---\nBody`);
    expect(parsed.data.description).toBe(
      'Use when routes change. Case: a new route.\n<example>\nContext: a POST route was added\nuser: "check it"\n</example>',
    );
    expect(parsed.data.tools).toBe('Read, Grep');
    expect(parsed.problem).toBeDefined();
  });

  it('recovers `argument-hint: [a] [b]` as the text the author wrote', () => {
    const parsed = parseFrontmatter('---\ndescription: Run it\nargument-hint: [pr-number] [priority]\n---\nx');
    expect(parsed.data['argument-hint']).toBe('[pr-number] [priority]');
    expect(parsed.data.description).toBe('Run it');
  });

  it('recovers folded and literal block scalars and lists in the lenient reader', () => {
    const parsed = parseFrontmatter(
      '---\ndescription: >\n  Folded over\n  two lines\nnotes: |\n  kept\n  as is\ntools:\n  - Read\n  - "Bash"\nbad: a: b\n---\nx',
    );
    expect(parsed.problem).toBeDefined();
    expect(parsed.data.description).toBe('Folded over two lines');
    expect(parsed.data.notes).toBe('kept\nas is');
    expect(parsed.data.tools).toEqual(['Read', 'Bash']);
  });

  it('trims folded > descriptions that YAML reads with a trailing newline', () => {
    const parsed = parseFrontmatter('---\ndescription: >\n  Writes notes\n  from PRs.\n---\nx');
    expect(asText(parsed.data.description)).toBe('Writes notes from PRs.');
  });

  it('treats a file without a leading --- as all body', () => {
    const parsed = parseFrontmatter('# Title\n\nText');
    expect(parsed.hasFrontmatter).toBe(false);
    expect(parsed.data).toEqual({});
    expect(parsed.body).toBe('# Title\n\nText');
  });

  it('recovers the leading keys of a frontmatter that never closes and reports it', () => {
    const parsed = parseFrontmatter('---\nname: open\ndescription: Never closed\nYou are an agent.\n');
    expect(parsed.data).toEqual({ name: 'open', description: 'Never closed' });
    expect(parsed.body).toBe('You are an agent.\n');
    expect(parsed.problem).toMatch(/never closes/);
  });

  it('accepts an empty frontmatter block and Windows line endings', () => {
    expect(parseFrontmatter('---\n---\nBody').data).toEqual({});
    const crlf = parseFrontmatter('---\r\nname: win\r\n---\r\nBody\r\n');
    expect(crlf.data.name).toBe('win');
    expect(crlf.body).toBe('Body\r\n');
  });

  it('never evaluates a ---js block: it is not frontmatter at all', () => {
    const parsed = parseFrontmatter('---js\n{ name: (() => { throw new Error("ran") })() }\n---\nBody');
    expect(parsed.hasFrontmatter).toBe(false);
  });

  it('does not share parsed data between identical files (no content cache)', () => {
    const text = '---\ntags: [a]\n---\nx';
    const first = parseFrontmatter(text);
    (first.data.tags as string[]).push('mutated');
    expect(parseFrontmatter(text).data.tags).toEqual(['a']);
  });
});

describe('field coercion', () => {
  it('turns non-string values of text fields back into text', () => {
    expect(asText(42)).toBe('42');
    expect(asText(true)).toBe('true');
    expect(asText(['a', 'b'])).toBe('a b');
    expect(asText(new Date('2025-03-01T00:00:00Z'))).toBe('2025-03-01');
    expect(asText({ Note: 'the rest' })).toBe('Note: the rest');
    expect(asText(null)).toBeUndefined();
    expect(asText('   ')).toBeUndefined();
  });

  it('gives argument-hint lists their brackets back', () => {
    expect(asArgumentHint(['file'])).toBe('[file]');
    expect(asArgumentHint(['count', 'unit'])).toBe('[count] [unit]');
    expect(asArgumentHint('<base> <head>')).toBe('<base> <head>');
  });

  it('reads tool lists from comma strings, YAML lists and bracketed text', () => {
    expect(asList('Read, Grep,Glob')).toEqual(['Read', 'Grep', 'Glob']);
    expect(asList(['Read', 'Bash(git add:*), Write'])).toEqual(['Read', 'Bash(git add:*)', 'Write']);
    expect(asList('Bash(git log, git diff), Read')).toEqual(['Bash(git log, git diff)', 'Read']);
    expect(asList('[Read, Grep]')).toEqual(['Read', 'Grep']);
    expect(asList([])).toEqual([]);
    expect(asList(undefined)).toBeUndefined();
  });

  it('takes a description from the first non-empty body line, without heading marks', () => {
    expect(firstBodyLine('\n\n## Review the diff\nMore')).toBe('Review the diff');
    expect(firstBodyLine('  \n')).toBeUndefined();
  });

  it('splits frontmatter without parsing it', () => {
    expect(splitFrontmatter('---\na: 1\n---\nB')).toEqual({ yaml: 'a: 1', body: 'B' });
    expect(splitFrontmatter('\uFEFF---\na: 1\n---\nB').yaml).toBe('a: 1');
  });
});

describe('a recovered frontmatter never swallows a later key', () => {
  it('reads model: after a description with an unclosed <function ...> tag, and says so', () => {
    const text = [
      '---',
      'name: helper',
      'description: Calls tools, for example:',
      '  <function name="x"> with: arguments',
      'model: opus',
      'color: blue',
      '---',
      'Body.',
    ].join('\n');
    const parsed = parseFrontmatter(text);
    expect(parsed.data).toMatchObject({ name: 'helper', model: 'opus', color: 'blue' });
    expect(parsed.data.description).toBe('Calls tools, for example:\n<function name="x"> with: arguments');
    expect(parsed.problem).toContain('an unclosed <function> tag in description would have hidden model, color');
  });
});
