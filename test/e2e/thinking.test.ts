// --max-thinking-tokens and the `thinking` setting reach each provider as its own control.
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedGemini, scriptedOllama } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

type Provider = 'anthropic' | 'openai' | 'gemini' | 'ollama';

async function firstBody(provider: Provider, args: string[], settings?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const repo = makeTempRepo(settings ? { '.beans/settings.json': JSON.stringify(settings) } : {});
  const turns = [{ text: 'ok' }];
  let server: ScriptedServer;
  let env: NodeJS.ProcessEnv;
  if (provider === 'anthropic') {
    server = await startScriptedAnthropic({ turns });
    env = { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, BEANS_PROVIDER: 'anthropic', BEANS_MODEL: 'claude-sonnet-5-5' };
  } else if (provider === 'openai') {
    server = await startScriptedOpenAi({ turns });
    env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1`, BEANS_PROVIDER: 'openai', BEANS_MODEL: 'gpt-5-mini' };
  } else if (provider === 'gemini') {
    server = await scriptedGemini({ turns });
    env = { GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: server.url, BEANS_PROVIDER: 'gemini', BEANS_MODEL: 'gemini-2.5-flash' };
  } else {
    server = await scriptedOllama({ turns });
    env = { OLLAMA_HOST: server.url, BEANS_PROVIDER: 'ollama', BEANS_MODEL: 'qwen3' };
  }
  if (provider === 'anthropic' || provider === 'openai') servers.push(server);
  const run = await runBeans(['-p', 'hi', ...args], { cwd: repo.dir, env: { ...repo.env, ...env } });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const chat = server.requests.find((request) => request.kind === 'chat') ?? server.requests[0]!;
  return chat.body as Record<string, unknown>;
}

describe('thinking control', () => {
  it('anthropic: a budget becomes thinking.budget_tokens with room for the answer; unset sends none', async () => {
    const body = await firstBody('anthropic', ['--max-thinking-tokens', '5000']);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 5000 });
    expect(body.max_tokens as number).toBeGreaterThan(5000);
    expect((await firstBody('anthropic', [])).thinking).toBeUndefined();
  });

  it('openai: the thinking setting becomes reasoning_effort', async () => {
    expect((await firstBody('openai', [], { thinking: 'high' })).reasoning_effort).toBe('high');
    expect((await firstBody('openai', ['--max-thinking-tokens', '1000'])).reasoning_effort).toBe('low');
  });

  it('gemini: thinkingConfig.thinkingBudget, 0 when off', async () => {
    const on = await firstBody('gemini', [], { thinking: 'medium' });
    expect(JSON.stringify(on)).toContain('"thinkingConfig":{"thinkingBudget":8192}');
    const off = await firstBody('gemini', ['--max-thinking-tokens', '0']);
    expect(JSON.stringify(off)).toContain('"thinkingConfig":{"thinkingBudget":0}');
  });

  it('ollama: think true or false', async () => {
    expect((await firstBody('ollama', ['--max-thinking-tokens', '0'])).think).toBe(false);
    expect((await firstBody('ollama', [], { thinking: 'low' })).think).toBe(true);
    expect((await firstBody('ollama', [])).think).toBeUndefined();
  });
});
