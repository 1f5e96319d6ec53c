import path from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { writeTinyModel } from '../support/gguf.ts';
import { makeTempRepo, parseJsonLines, runBeans, type TempRepo } from './harness.ts';

// bin/beans with the embedded llama.cpp provider on a tiny random GGUF the test writes (test/support/gguf.ts).
// The model's text is noise; what is checked is the plumbing: streaming, usage, grammar-constrained tool
// calls that run, and the sentences for files that are not models.

// Every built-in tool but list_directory, whose call needs no argument: a random model constrained by the
// grammar then makes a call that runs. (The prompt stays short too: the tiny model reads it byte by byte.)
const OTHER_TOOLS = [
  'read_file',
  'write_file',
  'edit_file',
  'notebook_edit',
  'shell',
  'shell_output',
  'kill_shell',
  'glob',
  'grep',
  'todo_write',
  'web_fetch',
  'memory',
  'task',
  'load_skill',
  'handoff',
];

function localRepo(settings: Record<string, unknown> = {}): { repo: TempRepo; model: string } {
  const repo = makeTempRepo({ 'hello.txt': 'hi\n' });
  const model = writeTinyModel(path.join(repo.home, 'tiny.gguf'), { contextLength: 32768 });
  mkdirSync(path.join(repo.home, '.config', 'beans-agent'), { recursive: true });
  const local = { threads: 1, gpu: 'off', maxTokens: 48, seed: 3, ...settings };
  writeFileSync(path.join(repo.home, '.config', 'beans-agent', 'settings.json'), JSON.stringify({ local }));
  return { repo, model };
}

describe('the local provider through bin/beans', () => {
  it('answers a one-shot prompt from a GGUF file given to -m, counting tokens at no cost', async () => {
    const { repo, model } = localRepo();
    const run = await runBeans(
      [
        '-p',
        'hi',
        '-m',
        model,
        '-o',
        'stream-json',
        '--verbose',
        '--include-partial-messages',
        '--disallowed-tools',
        [...OTHER_TOOLS, 'list_directory'].join(','),
      ],
      {
        cwd: repo.dir,
        env: repo.env,
        timeoutMs: 60_000,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = parseJsonLines(run.stdout);
    const deltas = lines.filter((line) => line.type === 'stream_event' && JSON.stringify(line).includes('text_delta'));
    expect(deltas.length).toBeGreaterThan(1);
    const result = lines.at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', total_cost_usd: 0 });
    const usage = result.usage as { input_tokens: number; output_tokens: number };
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeLessThanOrEqual(48);
    expect(usage.input_tokens).toBeGreaterThan(100);
  });

  it('a random model constrained by the tools grammar calls a tool, and the call runs', async () => {
    const { repo, model } = localRepo({ toolChoice: 'required', maxTokens: 400 });
    const run = await runBeans(
      ['-p', 'list the files', '-m', model, '-o', 'stream-json', '--verbose', '--max-turns', '1', '--disallowed-tools', OTHER_TOOLS.join(',')],
      {
        cwd: repo.dir,
        env: repo.env,
        timeoutMs: 60_000,
      },
    );
    const lines = parseJsonLines(run.stdout);
    const blocks = lines.flatMap((line) => ((line.message as { content?: unknown[] } | undefined)?.content ?? []) as Record<string, unknown>[]);
    const call = blocks.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ name: 'list_directory' });
    const result = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === call!.id);
    expect(JSON.stringify(result)).toContain('hello.txt');
  });

  it('a context too small for the first request is one sentence naming both sizes, not llama.cpp\'s "Failed to compress"', async () => {
    const { repo, model } = localRepo({ contextSize: 512 });
    const run = await runBeans(['-p', 'hi', '-m', model], { cwd: repo.dir, env: repo.env, timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/compress/i);
    expect(run.stderr.trim()).toMatch(
      /^beans: The request is \d+ tokens, more than the local model's context of 512 tokens: raise local\.contextSize \(up to the 32768 this model was trained for\) or use a model with a longer context\.$/,
    );
    expect(Number(/is (\d+) tokens/.exec(run.stderr)![1])).toBeGreaterThan(512);
  });

  it('a file that is not a model: one sentence, exit 3', async () => {
    const { repo } = localRepo();
    repo.write('notes.gguf', 'not a model\n');
    const run = await runBeans(['-p', 'hi', '-m', 'notes.gguf'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr.trim()).toBe(
      `beans: ${path.join(repo.dir, 'notes.gguf')} is not a GGUF model file (it does not start with the GGUF signature); local models must be .gguf files.`,
    );
  });

  it('--provider local with no model downloaded names `beans models pull` (exit 3)', async () => {
    const { repo } = localRepo();
    const run = await runBeans(['-p', 'hi', '--provider', 'local'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/No local model is downloaded\. Run `beans models pull`/);
  });

  it('no key and no Ollama: one-shot exits 3 naming `beans models pull`; with a pulled model, that model answers', async () => {
    const { repo } = localRepo();
    const env = { ...repo.env, OLLAMA_HOST: `http://127.0.0.1:${await closedPort()}` };
    const none = await runBeans(['-p', 'hi'], { cwd: repo.dir, env });
    expect(none.code).toBe(3);
    expect(none.stderr.trim()).toMatch(
      /^beans: Cannot reach Ollama at http:\/\/127\.0\.0\.1:\d+ \(connection refused\), no API key is set \(GEMINI_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY\) and no local model is downloaded\. Run `beans models pull` to download one that runs inside Beans/,
    );
    const models = path.join(repo.home, '.cache', 'beans-agent', 'models');
    mkdirSync(models, { recursive: true });
    writeTinyModel(path.join(models, 'tiny.gguf'), { contextLength: 32768 });
    const run = await runBeans(['-p', 'hi', '--disallowed-tools', [...OTHER_TOOLS, 'list_directory'].join(',')], { cwd: repo.dir, env, timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`and no API key is set: using the local model ${path.join(models, 'tiny.gguf')}`);
    expect(run.stdout.length).toBeGreaterThan(0); // the random model's text
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
