import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { splitFrontmatter } from '../../src/plugins/frontmatter.js';
import { readPlainFrontmatter } from '../../src/plugins/plain-frontmatter.js';

const root = path.resolve(import.meta.dirname, '../../../..');

function jsYamlReads(yaml: string): { data: unknown } | { error: true } {
  try {
    return { data: jsYaml.safeLoad(yaml) };
  } catch {
    return { error: true };
  }
}

/** The fast reader either declines or reads exactly what js-yaml reads. */
function expectAgreement(yaml: string): boolean {
  const plain = readPlainFrontmatter(yaml);
  if (plain === undefined) return false;
  expect(jsYamlReads(yaml), JSON.stringify(yaml)).toEqual({ data: plain });
  return true;
}

const markdownFiles = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' }).trim().split('\n');

describe('plain frontmatter without js-yaml', () => {
  it('reads every frontmatter of the repository as js-yaml does, or leaves it to js-yaml', () => {
    let read = 0;
    for (const file of markdownFiles) {
      const { yaml } = splitFrontmatter(readFileSync(path.join(root, file), 'utf8'));
      if (yaml !== undefined && expectAgreement(yaml)) read += 1;
    }
    expect(read).toBeGreaterThan(20);
  });

  it("reads all of the built-in plugins' frontmatter itself", () => {
    for (const file of markdownFiles.filter((f) => f.startsWith('plugins/'))) {
      const { yaml } = splitFrontmatter(readFileSync(path.join(root, file), 'utf8'));
      if (yaml !== undefined) expect(readPlainFrontmatter(yaml), file).toBeDefined();
    }
  });

  const tricky = [
    'text',
    'two words',
    "it's",
    'say "hi"',
    'a, b, c',
    'a [b] {c}',
    'a#b',
    'a #b',
    'a: b',
    'a:b',
    'ends:',
    'x-y_z',
    'tab\there',
    'true',
    'True',
    'TRUE',
    'tRUE',
    'false',
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    'null',
    'Null',
    'NULL',
    'nULL',
    '~',
    '',
    '12',
    '1.5',
    '0x1F',
    '1:20',
    '2024-01-01',
    '2024-01-01T10:00:00Z',
    '.inf',
    '-.inf',
    '.nan',
    '+1',
    '-1',
    '1e3',
    'Infinity',
    'NaN',
    '"quoted"',
    '"with \\" escape"',
    '"a: b"',
    "'single'",
    "'it''s'",
    "'a: b'",
    '"unterminated',
    '&anchor a',
    '*alias',
    '!tag a',
    '!!str a',
    '|',
    '>',
    '|-',
    '%x',
    '@x',
    '`x`',
    '- x',
    '? x',
    '[a, b]',
    '{a: b}',
    '  padded  ',
    'été',
    'émoji 🎉',
    'a\u0085b',
    'a\u2028b',
    'a\ufeffb',
    'a\u007fb',
    'a\u0080b',
    'a\rb',
    'a\ud800b',
    'x  # c',
    '"x" # c',
    "'x' # c",
    'a\\b',
    'C:\\path',
  ];

  it('agrees with js-yaml on tricky values, alone, in lists and after other keys', () => {
    let read = 0;
    for (const value of tricky) {
      for (const yaml of [
        `description: ${value}`,
        `description:${value}`,
        `name: x\ndescription: ${value}\nmodel: inherit`,
        `triggers:\n  - ${value}\n  - other`,
        `triggers:\n- ${value}`,
        `triggers:\n  - a\n    - ${value}`,
        `triggers:\n  - a\n ${value}`,
        `description: a\n  ${value}`,
        `${value}: x`,
      ]) {
        if (expectAgreement(yaml)) read += 1;
      }
    }
    expect(read).toBeGreaterThan(50);
  });

  it('agrees with js-yaml on the shape of the block', () => {
    for (const yaml of [
      'a: 1\na: 2',
      'a: x\na: y',
      'name: x\n\ndescription: y',
      'name: x\n# comment\ndescription: y',
      'name: x\r\ndescription: y\r\n',
      'name: x   \ndescription: y',
      'tools:\nname: x',
      'tools:',
      'tools:\n  -',
      'tools:\n  - a\n  -   b  \nname: c',
      'tools:\n  - a\n   - b',
      'nested:\n  key: value',
      '__proto__: x',
      'constructor: x',
      'toString: x',
      '-name: x',
      '_name: x',
      'na me: x',
      'name : x',
      '  name: x',
      '...',
      'name: x\n...',
    ]) {
      expectAgreement(yaml);
    }
  });

  it('reads a hostile line of 200,000 spaces in linear time', () => {
    for (const yaml of [`description: a${' '.repeat(200_000)}b`, `triggers:\n  - a${' '.repeat(200_000)}b`, `description:${' '.repeat(200_000)}`]) {
      const started = performance.now();
      readPlainFrontmatter(yaml);
      expect(performance.now() - started).toBeLessThan(100);
    }
  });
});
