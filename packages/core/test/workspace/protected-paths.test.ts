import { describe, expect, it } from 'vitest';
import { isProtectedPath } from '../../src/workspace/protected-paths.js';

describe('protected paths (files that make Beans run code)', () => {
  it('covers configuration at the root, server and plugin manifests anywhere, and plugin hooks folders', () => {
    for (const file of [
      '.beans/settings.json',
      './.claude/x',
      '.mcp.json',
      '.lsp.json',
      '.git/hooks/pre-commit',
      '.gitmodules',
      'plugins/a/.mcp.json',
      'deep/tools/plugins/b/.mcp.json',
      'plugins/a/.claude-plugin/plugin.json',
      'x/plugin.json',
      'plugins/a/hooks/hooks.json',
      'plugins/a/hooks/guard.sh',
      'plugins/a/hooks',
      'a/b/hooks.json',
      'plugins/a/.lsp.json',
    ]) {
      expect(isProtectedPath(file), file).toBe(true);
    }
  });

  it('leaves ordinary files alone, including folders that merely share a name', () => {
    for (const file of [
      'src/hooks/useThing.ts',
      'plugins/a/commands/x.md',
      'plugins/a/skills/s/SKILL.md',
      'docs/.beans.md',
      'mcp.json',
      'README.md',
      'hooks/x.sh',
    ]) {
      expect(isProtectedPath(file), file).toBe(false);
    }
  });
});
