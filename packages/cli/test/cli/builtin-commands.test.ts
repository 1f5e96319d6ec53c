import { describe, expect, it } from 'vitest';
import { BUILTIN_COMMAND_NAMES } from '@beans/core';
import { BUILTIN_COMMANDS } from '../../src/builtin-commands.js';
import { VERSION } from '../../src/version.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

describe('built-in chat commands', () => {
  it('describe exactly the names core reserves', () => {
    expect(BUILTIN_COMMANDS.map((command) => command.name).sort()).toEqual([...BUILTIN_COMMAND_NAMES].sort());
    expect(BUILTIN_COMMANDS.every((command) => command.description.length > 0)).toBe(true);
  });
});

describe('version', () => {
  it('matches the package version (so --version can answer without reading files)', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../../package.json'), 'utf8'));
    expect(VERSION).toBe(pkg.version);
  });
});
