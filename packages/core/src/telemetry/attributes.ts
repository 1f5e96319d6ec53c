import os from 'node:os';
import path from 'node:path';
import type { TelemetrySettings } from './types.js';
import { builtin } from '../node-builtins.js';

/** Attributes every signal carries: who (anonymously), which session, which version, where. */
export function commonAttributes(options: {
  sessionId: string;
  version: string;
  settings: TelemetrySettings;
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
}): Record<string, string> {
  const { settings, env } = options;
  return {
    'session.id': options.sessionId,
    'user.id': anonymousUserId(),
    'app.version': options.version,
    'terminal.type': env.TERM_PROGRAM || env.TERM || 'unknown',
    ...(settings.organization ? { organization: settings.organization } : {}),
    // A repository's name can say what a team works on: only when the team asks for it.
    ...(settings.includeRepository ? { 'repository.name': path.basename(options.workspaceRoot) } : {}),
  };
}

/** Stable for one account on one machine, and says nothing about either. */
function anonymousUserId(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers).
  }
  return builtin('node:crypto').createHash('sha256').update(`beans:${user}@${os.hostname()}`).digest('hex').slice(0, 32);
}
