import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fake HOME and workspace in a temp folder; `env` points Beans at them and nowhere else. */
export function tempHome() {
  const base = mkdtempSync(path.join(os.tmpdir(), 'beans-config-'));
  const home = path.join(base, 'home');
  const workspace = path.join(base, 'repo');
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const env: NodeJS.ProcessEnv = { HOME: home };
  const userFile = path.join(home, '.config', 'beans-agent', 'settings.json');
  const workspaceFile = path.join(workspace, '.beans', 'settings.json');
  const write = (file: string, content: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`);
  };
  return { base, home, workspace, env, userFile, workspaceFile, write, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}
