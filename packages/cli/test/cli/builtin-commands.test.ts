import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_COMMAND_NAMES, VERSION as CORE_VERSION } from '@beans/core';
import { BUILTIN_NAMES } from '../../src/ui/commands.js';
import { VERSION } from '../../src/version.js';

describe('built-in chat commands', () => {
  it('are exactly the names core reserves (so plugin clashes are reported for each of them)', () => {
    expect([...BUILTIN_NAMES].sort()).toEqual([...BUILTIN_COMMAND_NAMES].sort());
  });
});

describe('version', () => {
  it('matches the package version (so --version can answer without reading files)', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../../package.json'), 'utf8'));
    expect(VERSION).toBe(pkg.version);
    expect(CORE_VERSION).toBe(pkg.version);
  });

  it('is the version bin/beans answers by itself', () => {
    const launcher = readFileSync(path.resolve(import.meta.dirname, '../../../../bin/beans'), 'utf8');
    expect(launcher).toContain(`1:--version | 1:-v | 1:-V) echo ${VERSION}; exit 0 ;;`);
  });
});
