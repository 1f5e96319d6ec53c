import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir, sessionsDir, stateDir, userSettingsPath, workspaceSlug } from '../../src/config/paths.js';

describe('where Beans keeps its files', () => {
  it('uses ~/.config/beans-agent and ~/.local/state/beans-agent under the HOME it is given', () => {
    const env = { HOME: '/tmp/somebody' };
    expect(configDir(env)).toBe('/tmp/somebody/.config/beans-agent');
    expect(userSettingsPath(env)).toBe('/tmp/somebody/.config/beans-agent/settings.json');
    expect(stateDir(env)).toBe('/tmp/somebody/.local/state/beans-agent');
  });

  it('follows XDG_CONFIG_HOME and XDG_STATE_HOME when they are set', () => {
    const env = { HOME: '/tmp/somebody', XDG_CONFIG_HOME: '/xdg/config', XDG_STATE_HOME: '/xdg/state' };
    expect(configDir(env)).toBe('/xdg/config/beans-agent');
    expect(stateDir(env)).toBe('/xdg/state/beans-agent');
    expect(path.dirname(sessionsDir(env, '/work/repo'))).toBe('/xdg/state/beans-agent/sessions');
  });

  it('ignores relative XDG values, as the XDG spec requires', () => {
    expect(configDir({ HOME: '/h', XDG_CONFIG_HOME: 'relative/dir' })).toBe('/h/.config/beans-agent');
  });

  it('gives each workspace its own recognisable sessions folder, outside the repository', () => {
    const env = { HOME: '/h' };
    const dir = sessionsDir(env, '/work/my-repo');
    expect(dir.startsWith('/h/.local/state/beans-agent/sessions/')).toBe(true);
    expect(path.basename(dir)).toMatch(/^work-my-repo-[0-9a-f]{8}$/);
    // Paths that slug the same still get different folders.
    expect(workspaceSlug('/a/b-c')).not.toBe(workspaceSlug('/a-b/c'));
  });

  it('names the sessions folder of a workspace byte for byte as before (SHA-256 now from @noble/hashes, not node:crypto)', () => {
    // Values the node:crypto implementation gave: existing session folders must still be found.
    expect(workspaceSlug('/work/my-repo')).toBe('work-my-repo-b9a92810');
    expect(workspaceSlug('/home/zoë/プロジェクト/app')).toMatch(/-1aa93c3a$/);
    expect(workspaceSlug('/tmp/a\uD800b')).toMatch(/-87ced7ec$/); // a lone surrogate: both encode it as U+FFFD
    const samples = ['/', '/a', 'relative/dir', '/x'.repeat(300), '/emoji/😀/ü/ß/中文', '/with space/and\ttab', '/a/b-c', '/a-b/c'];
    for (const sample of samples) {
      const resolved = path.resolve(sample);
      expect(workspaceSlug(sample).slice(-8)).toBe(createHash('sha256').update(resolved).digest('hex').slice(0, 8));
    }
  });

  it('puts sessions under a configured root instead when asked', () => {
    expect(path.dirname(sessionsDir({ HOME: '/h' }, '/work/r', '/elsewhere'))).toBe('/elsewhere');
  });
});
