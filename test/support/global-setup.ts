// Gives the whole suite a machine of its own (issue 34): a fresh, empty temp folder and HOME, made
// here and removed at the end, so no test passes only because an earlier run, another user or the
// developer left something behind (a /tmp/claude, settings in ~/.config, a git identity, a cache).
// Vitest runs this in its main process before it forks the test workers, which inherit the
// environment set here; what a test spawns inherits it in turn unless the test passes its own.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Variables from the developer's shell that would change what Beans or its tools do in a test. */
const INHERITED_STATE = [
  'CLAUDE_CODE_TMPDIR',
  'CLAUDE_TMPDIR',
  'XDG_CONFIG_HOME',
  'XDG_STATE_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_RUNTIME_DIR',
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_CONFIG_GLOBAL',
  'BEANS_PROVIDER',
  'BEANS_MODEL',
  'OLLAMA_HOST',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
];

export default function setup(): () => void {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'beans-suite-')));
  const tmp = path.join(root, 'tmp');
  const home = path.join(root, 'home');
  mkdirSync(tmp);
  mkdirSync(home);
  // Only what a fresh developer machine has after `git config --global user.*`: tests that commit
  // in process get an identity; Beans' own end-to-end runs use their own HOME without one.
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Beans Test\n\temail = beans-test@example.invalid\n[init]\n\tdefaultBranch = main\n');
  const previous = { TMPDIR: process.env.TMPDIR, HOME: process.env.HOME };
  for (const name of INHERITED_STATE) delete process.env[name];
  process.env.TMPDIR = tmp;
  process.env.HOME = home;
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true });
  };
}
