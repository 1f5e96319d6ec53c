// The OpenAI and Anthropic providers end to end: the built `bin/beans` against scripted servers that
// speak Chat Completions and Messages, fixing a bug over several turns with tools run in parallel.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptOptions, ScriptTurn, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(provider: 'openai' | 'anthropic', options: ScriptOptions): Promise<ScriptedServer> {
  const server = provider === 'openai' ? await startScriptedOpenAi(options) : await startScriptedAnthropic(options);
  servers.push(server);
  return server;
}

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';

// Look around (three read-only calls in one turn), fix, check, answer.
const BUG_FIX: ScriptTurn[] = [
  {
    text: 'Let me look.',
    toolCalls: [
      { name: 'glob', args: { pattern: 'src/*.js' } },
      { name: 'read_file', args: { path: 'src/math.js' } },
      { name: 'grep', args: { pattern: 'a - b', path: 'src' } },
    ],
    usage: { input: 2000, output: 40 },
  },
  {
    reasoning: 'The subtraction is the bug.',
    toolCalls: [{ name: 'edit_file', args: { path: 'src/math.js', old_string: 'return a - b;', new_string: 'return a + b;' } }],
    usage: { input: 2500, output: 30 },
  },
  { toolCalls: [{ name: 'shell', args: { command: 'grep -c "a + b" src/math.js' } }], usage: { input: 2700, output: 20 } },
  { text: ['Fixed: add ', 'now adds.'], usage: { input: 2900, output: 10 } },
];

type Result = {
  type: string;
  subtype: string;
  is_error: boolean;
  result: string;
  num_turns: number;
  usage: { input_tokens: number; output_tokens: number };
  total_cost_usd: number;
};

describe.each([
  { provider: 'openai' as const, env: (url: string) => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: `${url}/v1` }), model: 'gpt-5-mini' },
  { provider: 'anthropic' as const, env: (url: string) => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: url }), model: 'claude-sonnet-5-5' },
])('bin/beans on $provider', ({ provider, env, model }) => {
  it('fixes a bug over several turns (glob, read_file and grep in parallel, edit_file, shell) and reports the result', async () => {
    const server = await start(provider, { turns: BUG_FIX, apiKey: 'test-key' });
    const repo = makeTempRepo({ 'src/math.js': BUGGY });
    const run = await runBeans(['-p', 'Fix the bug in add.', '--provider', provider, '-m', model, '--yolo', '-o', 'json'], {
      cwd: repo.dir,
      env: { ...repo.env, ...env(server.url) },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(repo.dir, 'src/math.js'), 'utf8')).toBe('export function add(a, b) {\n  return a + b;\n}\n');
    const result = JSON.parse(run.stdout) as Result;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Fixed: add now adds.', num_turns: 4 });
    expect(result.usage.output_tokens).toBe(100);
    expect(result.total_cost_usd).toBeGreaterThan(0);

    const chats = server.requests.filter((r) => r.kind === 'chat');
    expect(chats).toHaveLength(4);
    // The second request carries all three results of the first turn.
    const second = JSON.stringify(chats[1].body);
    expect(second).toContain('export function add');
    expect(second).toContain('src/math.js');
    // The shell's output reached the model.
    expect(JSON.stringify(chats[3].body)).toMatch(/\b1\b/);
  });

  it('exits 3 naming the key variable when it is missing, and 2 for an unknown --provider', async () => {
    const repo = makeTempRepo();
    const missing = await runBeans(['-p', 'hi', '--provider', provider], { cwd: repo.dir, env: repo.env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain(provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY');
    const unknown = await runBeans(['-p', 'hi', '--provider', 'nosuch'], { cwd: repo.dir, env: repo.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown provider "nosuch"/);
  });

  it('lists models with `beans models list`', async () => {
    const server = await start(provider, { turns: [], models: [{ name: `${model}` }, { name: 'other-model' }] });
    const repo = makeTempRepo();
    const run = await runBeans(['models', 'list', '--json', '--provider', provider], { cwd: repo.dir, env: { ...repo.env, ...env(server.url) } });
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { models: { name: string }[] }).models.map((m) => m.name).sort()).toEqual([model, 'other-model'].sort());
  });
});

describe('a custom OpenAI-compatible provider from settings', () => {
  it('runs with --provider <name>, its first model, and the key from apiKeyEnv', async () => {
    const server = await start('openai', { turns: BUG_FIX, apiKey: 'lm-key', models: [{ name: 'qwen2.5-coder-14b' }] });
    const repo = makeTempRepo({ 'src/math.js': BUGGY });
    repo.write(
      '.beans/settings.json',
      JSON.stringify({ providers: { lmstudio: { type: 'openai', baseUrl: `${server.url}/v1`, apiKeyEnv: 'LMSTUDIO_KEY', models: ['qwen2.5-coder-14b'] } } }),
    );
    const run = await runBeans(['-p', 'Fix the bug in add.', '--provider', 'lmstudio', '--yolo', '-o', 'json', '--trust'], {
      cwd: repo.dir,
      env: { ...repo.env, LMSTUDIO_KEY: 'lm-key' },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(repo.dir, 'src/math.js'), 'utf8')).toContain('return a + b;');
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: 'success', result: 'Fixed: add now adds.' });
    expect((server.requests.find((r) => r.kind === 'chat')?.body as { model: string }).model).toBe('qwen2.5-coder-14b');
  });

  it('keeps the key named by apiKeyEnv out of the commands the model runs', async () => {
    const turns: ScriptTurn[] = [{ toolCalls: [{ name: 'shell', args: { command: 'echo "key=[$LMSTUDIO_KEY]"' } }] }, { text: 'done' }];
    const server = await start('openai', { turns, apiKey: 'lm-secret-key' });
    const repo = makeTempRepo();
    repo.write(
      '.beans/settings.json',
      JSON.stringify({ providers: { lmstudio: { type: 'openai', baseUrl: `${server.url}/v1`, apiKeyEnv: 'LMSTUDIO_KEY', models: ['m'] } } }),
    );
    const run = await runBeans(['-p', 'show the key', '--provider', 'lmstudio', '--yolo', '--trust'], {
      cwd: repo.dir,
      env: { ...repo.env, LMSTUDIO_KEY: 'lm-secret-key' },
    });
    expect(run.code).toBe(0);
    const second = JSON.stringify(server.requests.filter((r) => r.kind === 'chat')[1].body);
    expect(second).toContain('key=[]');
    expect(second).not.toContain('lm-secret-key');
  });

  it('is a settings error naming the file when `provider` names no known provider (exit 3); `beans config` says which provider and why', async () => {
    const repo = makeTempRepo();
    repo.write('.beans/settings.json', JSON.stringify({ provider: 'lmstudoi', providers: { lmstudio: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } } }));
    const run = await runBeans(['-p', 'hi', '--trust'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(path.join(repo.dir, '.beans', 'settings.json'));
    expect(run.stderr).toContain('lmstudio');

    repo.write('.beans/settings.json', JSON.stringify({ providers: { lmstudio: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } } }));
    const config = await runBeans(['config', '--trust'], { cwd: repo.dir, env: { ...repo.env, ANTHROPIC_API_KEY: 'k' } });
    expect(config.code).toBe(0);
    expect(config.stdout).toContain('Provider: anthropic (ANTHROPIC_API_KEY is set)');
  });
});
