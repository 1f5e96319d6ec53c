import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHookRunner, type HookCommand, type HookRunnerOptions } from '../../src/hooks/index.js';
import type { HookEventName } from '../../src/hooks/schema.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'hooks');
export const script = (name: string) => path.join(FIXTURES, 'scripts', name);

export function tempDir(prefix = 'beans-hooks-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function hook(event: HookEventName, command: string, extra: Partial<HookCommand> = {}): HookCommand {
  return { event, command, timeout: 60, source: { kind: 'user', file: '/home/u/.config/beans-agent/settings.json' }, ...extra };
}

export function runnerFor(hooks: HookCommand[], cwd: string, extra: Partial<HookRunnerOptions> = {}) {
  return createHookRunner({ hooks, sessionId: 'sess-1', transcriptPath: path.join(cwd, 'sess-1.jsonl'), cwd, permissionMode: () => 'default', ...extra });
}

export function recorded(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
