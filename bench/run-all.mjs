// Runs every benchmark in turn (pnpm bench). Each one prints its own numbers.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const names = ['startup', 'loop', 'plugins', 'resume', 'search', 'render', 'workflow', 'long-session', 'cost'];
for (const name of names) {
  const file = path.join(import.meta.dirname, `${name}.mjs`);
  if (!existsSync(file)) continue;
  console.log(`\n## ${name}`);
  const run = spawnSync(process.execPath, [file], { stdio: 'inherit' });
  if (run.status !== 0) process.exitCode = 1;
}
