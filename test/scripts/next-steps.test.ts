// setup.sh ends by saying what to do next (issue 59 item 12): with a key set, run bin/beans; with
// Ollama answering, the same; with neither, how to give Beans a model. Run as setup.sh runs it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import type { ScriptedServer } from '../support/script.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NEXT_STEPS = path.join(ROOT, 'scripts', 'next-steps.sh');
const run = async (env: Record<string, string>) =>
  (await promisify(execFile)('bash', [NEXT_STEPS], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } })).stdout;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('what setup.sh says at the end', () => {
  test('setup.sh runs it last', () => {
    const lines = readFileSync(path.join(ROOT, 'scripts', 'setup.sh'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.at(-1)).toBe('./scripts/next-steps.sh');
  });

  test('with a key set: which one, and bin/beans next', async () => {
    expect(await run({ ANTHROPIC_API_KEY: 'sk-test' })).toMatch(/^Beans is ready \(ANTHROPIC_API_KEY is set\)\. Next: bin\/beans/);
  });

  test('with Ollama answering at OLLAMA_HOST: that it does, and bin/beans next', async () => {
    server = await startScriptedOllama({ turns: [] });
    expect(await run({ OLLAMA_HOST: server.url })).toContain(`Beans is ready (Ollama answers at ${server.url}). Next: bin/beans`);
  });

  test('with neither: a key export, Ollama or a local model, then bin/beans', async () => {
    const out = await run({ OLLAMA_HOST: 'http://127.0.0.1:9' });
    expect(out).toContain('Give it a model');
    expect(out).toContain('export ANTHROPIC_API_KEY=');
    expect(out).toContain('ollama serve');
    expect(out).toContain('bin/beans models pull');
  });
});
