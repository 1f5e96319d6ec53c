// The suite runs on a machine of its own (test/support/global-setup.ts, issue 34): whatever this
// machine's /tmp, HOME or shell hold, tests see a fresh temp folder and HOME.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the test suite environment', () => {
  it("has a temp folder and HOME made for this run, not the machine's", () => {
    const root = path.dirname(os.tmpdir());
    expect(path.basename(root)).toMatch(/^beans-suite-/);
    expect(os.tmpdir()).toBe(path.join(root, 'tmp'));
    expect(os.homedir()).toBe(path.join(root, 'home'));
    expect(readdirSync(os.homedir())).toContain('.gitconfig');
  });

  it("carries none of the developer's state that changes what Beans does", () => {
    for (const name of ['CLAUDE_CODE_TMPDIR', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'BEANS_PROVIDER', 'OLLAMA_HOST', 'GEMINI_API_KEY']) {
      expect(process.env[name], name).toBeUndefined();
    }
  });

  it('gives a child process the same environment, git identity included', () => {
    const out = execFileSync('sh', ['-c', 'echo "$TMPDIR"; git config user.email'], { encoding: 'utf8' });
    expect(out).toBe(`${os.tmpdir()}\nbeans-test@example.invalid\n`);
  });
});
