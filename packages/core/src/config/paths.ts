import { sha256 } from '@noble/hashes/sha2.js';
import os from 'node:os';
import path from 'node:path';

type Env = NodeJS.ProcessEnv;

const APP_DIR = 'beans-agent';

/** HOME from the given env first, so tests (and `sudo -E`-style callers) control where files go. */
function homeDir(env: Env): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/** Expands a leading `~` with the HOME of `env`. */
export function expandHome(p: string, env: Env): string {
  if (p === '~') return homeDir(env);
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(homeDir(env), p.slice(2));
  return p;
}

// The XDG spec says relative values must be ignored.
function xdg(env: Env, name: string): string | undefined {
  const value = env[name];
  return value && path.isAbsolute(value) ? value : undefined;
}

/** `$XDG_CONFIG_HOME/beans-agent`, else `~/.config/beans-agent`. */
export function configDir(env: Env): string {
  return path.join(xdg(env, 'XDG_CONFIG_HOME') ?? path.join(homeDir(env), '.config'), APP_DIR);
}

/** `$XDG_STATE_HOME/beans-agent`, else `~/.local/state/beans-agent`. */
export function stateDir(env: Env): string {
  return path.join(xdg(env, 'XDG_STATE_HOME') ?? path.join(homeDir(env), '.local', 'state'), APP_DIR);
}

export function userSettingsPath(env: Env): string {
  return path.join(configDir(env), 'settings.json');
}

export function workspaceSettingsPath(workspaceRoot: string): string {
  return path.join(workspaceRoot, '.beans', 'settings.json');
}

/** Personal settings for one workspace, kept out of version control. */
export function localSettingsPath(workspaceRoot: string): string {
  return path.join(workspaceRoot, '.beans', 'settings.local.json');
}

/**
 * The folder holding one workspace's sessions: `<root>/<slug>-<hash>` where root is the
 * `sessions.dir` setting or `<stateDir>/sessions`. The slug keeps the folder recognisable; the hash
 * keeps `/a/b-c` and `/a-b/c` apart.
 */
export function sessionsDir(env: Env, workspaceRoot: string, root: string = path.join(stateDir(env), 'sessions')): string {
  return path.join(root, workspaceSlug(workspaceRoot));
}

/**
 * `<last 48 safe characters of the path>-<8 hex of its SHA-256>`. The hash is noble's SHA-256, not
 * node:crypto's (the same bytes: UTF-8 of the path, as createHash().update(path) took it): every run
 * finds its sessions folder before the first request, and loading node:crypto for one short hash
 * cost ~4 ms of CPU.
 */
export function workspaceSlug(workspaceRoot: string): string {
  const resolved = path.resolve(workspaceRoot);
  const hash = Buffer.from(sha256(Buffer.from(resolved, 'utf8')))
    .toString('hex')
    .slice(0, 8);
  const slug = resolved
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(-48)
    .replace(/^[-.]+/, '');
  return slug ? `${slug}-${hash}` : hash;
}
