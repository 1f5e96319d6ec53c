import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.ts';

// Issue 60: the README is what a newcomer reads in five minutes; the rest is in docs/.
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 3));

describe('README.md', () => {
  it('is at most 250 lines (move the details to a page of docs/)', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('starts a chat from a fresh clone with one command, and tests with another', () => {
    expect(quickStart).toContain('./scripts/setup.sh && bin/beans');
    expect(quickStart).toContain('./scripts/test.sh');
  });

  it('says how to give Beans a model on every provider in its first screenful', () => {
    const firstScreenful = readme.split('\n').slice(0, 45).join('\n');
    for (const way of ['export ANTHROPIC_API_KEY=', 'export GEMINI_API_KEY=', 'export OPENAI_API_KEY=', 'ollama serve', 'models pull']) {
      expect(firstScreenful).toContain(way);
    }
  });

  it('names the test command CI runs (.ci/run runs exactly it)', () => {
    const ci = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    const command = /^(\.\/scripts\/test\.sh)\s/m.exec(quickStart)?.[1];
    expect(command).toBe('./scripts/test.sh');
    expect(ci.trim().split('\n').at(-1)).toBe(`exec ${command}`);
  });

  it('shows the chat and the web view', () => {
    expect(readme).toContain('](docs/images/chat.png)');
    expect(readme).toContain('](docs/images/web-view.png)');
  });

  it('gives a model the ways ./scripts/setup.sh names when it ends (scripts/next-steps.sh)', () => {
    // No key and no Ollama (a port nothing listens on): the script lists every way to give Beans a model.
    const env = { PATH: process.env.PATH!, OLLAMA_HOST: 'http://127.0.0.1:9' };
    const next = execFileSync('bash', [path.join(ROOT, 'scripts/next-steps.sh')], { env, encoding: 'utf8' });
    for (const way of ['export ANTHROPIC_API_KEY=', 'GEMINI_API_KEY', 'OPENAI_API_KEY', 'ollama serve', 'models pull', 'bin/beans']) {
      expect(next).toContain(way);
      expect(quickStart).toContain(way);
    }
  });
});
