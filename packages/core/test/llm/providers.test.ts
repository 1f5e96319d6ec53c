import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { geminiProvider } from '../../src/llm/gemini.js';
import { resolveOllamaHost } from '../../src/llm/ollama.js';
import { createClient, defaultProviderId, modelLimits, registerBuiltinProviders, resolveModelAlias } from '../../src/llm/providers.js';
import { listProviders } from '../../src/llm/registry.js';

describe('built-in providers', () => {
  it('registers Gemini and Ollama once, however often it is called', () => {
    registerBuiltinProviders();
    registerBuiltinProviders();
    const ids = listProviders().map((p) => p.id);
    expect(ids.filter((id) => id === 'gemini')).toHaveLength(1);
    expect(ids.filter((id) => id === 'ollama')).toHaveLength(1);
  });

  it('defaults to the first configured of gemini, anthropic, openai, else Ollama', () => {
    expect(defaultProviderId({ OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toBe('anthropic');
    expect(defaultProviderId({ OPENAI_API_KEY: 'k' })).toBe('openai');
    expect(defaultProviderId({ OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'k' })).toBe('gemini');
    expect(defaultProviderId({ GEMINI_API_KEY: 'k' })).toBe('gemini');
    expect(defaultProviderId({ GOOGLE_API_KEY: 'k' })).toBe('gemini');
    expect(defaultProviderId({ GEMINI_API_KEY: '  ' })).toBe('ollama');
    expect(defaultProviderId({})).toBe('ollama');
    expect(geminiProvider.isConfigured({})).toBe(false);
  });

  it('rejects an unknown provider with a configuration error that lists the known ones', async () => {
    const attempt = createClient('nosuch', {});
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(/Unknown provider "nosuch".*gemini.*anthropic.*openai.*ollama/),
    });
  });

  it('knows the context window and a sensible answer cap of current models', () => {
    expect(modelLimits('anthropic', 'claude-sonnet-5-5')).toEqual({ contextWindow: 1_000_000, maxOutputTokens: 64_000 });
    expect(modelLimits('anthropic', 'claude-haiku-4-5-20251001')).toEqual({ contextWindow: 200_000, maxOutputTokens: 32_000 });
    expect(modelLimits('openai', 'gpt-6.1-terra')).toEqual({ contextWindow: 1_050_000, maxOutputTokens: 128_000 });
    expect(modelLimits('ollama', 'qwen3')).toEqual({});
    expect(modelLimits('nosuch', 'x')).toEqual({});
  });

  it('maps Claude model names in agent files to the provider', () => {
    expect(resolveModelAlias('gemini', 'opus', 'gemini-2.5-flash')).toBe('gemini-2.5-pro');
    expect(resolveModelAlias('gemini', 'haiku', 'gemini-2.5-flash')).toBe('gemini-2.5-flash-lite');
    expect(resolveModelAlias('gemini', 'inherit', 'gemini-2.5-flash')).toBe('gemini-2.5-flash');
    expect(resolveModelAlias('gemini', undefined, 'gemini-2.5-flash')).toBe('gemini-2.5-flash');
    expect(resolveModelAlias('ollama', 'sonnet', 'qwen3:8b')).toBe('qwen3:8b');
    expect(resolveModelAlias('ollama', 'llama3.2:3b', 'qwen3:8b')).toBe('llama3.2:3b');
    expect(resolveModelAlias('anthropic', 'sonnet', 'claude-haiku-5-5')).toBe('claude-sonnet-5-5');
    expect(resolveModelAlias('anthropic', 'fable', 'claude-haiku-5-5')).toBe('claude-fable-5-1');
    expect(resolveModelAlias('anthropic', 'claude-opus-4-8', 'claude-haiku-5-5')).toBe('claude-opus-4-8');
    expect(resolveModelAlias('openai', 'haiku', 'gpt-6.1-sol')).toBe('gpt-6-luna');
  });
});

describe('the Ollama address', () => {
  it('comes from the option, else OLLAMA_HOST, else the local default', () => {
    expect(resolveOllamaHost({})).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost({ OLLAMA_HOST: 'http://gpu-box:8080' })).toBe('http://gpu-box:8080');
    expect(resolveOllamaHost({ OLLAMA_HOST: 'http://gpu-box:8080' }, 'http://other:1')).toBe('http://other:1');
  });

  it('accepts what the ollama CLI accepts: host:port, bare host, :port, bind-all', () => {
    expect(resolveOllamaHost({ OLLAMA_HOST: '10.0.0.5:9000' })).toBe('http://10.0.0.5:9000');
    expect(resolveOllamaHost({ OLLAMA_HOST: 'gpu-box' })).toBe('http://gpu-box:11434');
    expect(resolveOllamaHost({ OLLAMA_HOST: ':9000' })).toBe('http://127.0.0.1:9000');
    expect(resolveOllamaHost({ OLLAMA_HOST: '0.0.0.0' })).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost({ OLLAMA_HOST: 'https://ollama.example.com/' })).toBe('https://ollama.example.com');
  });
});

describe('start-up cost', () => {
  it('loads no provider SDK until a client of that provider is created', () => {
    // A fresh Node process (not vitest's module graph) records which packages get resolved.
    const entry = fileURLToPath(new URL('../../src/llm/index.ts', import.meta.url));
    const script = `
      import { registerHooks } from 'node:module';
      import { existsSync } from 'node:fs';
      import { fileURLToPath } from 'node:url';
      const seen = [];
      registerHooks({
        resolve(specifier, context, next) {
          if (['@google/genai/web', 'ollama', 'openai', '@anthropic-ai/sdk'].includes(specifier)) seen.push(specifier);
          if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL) {
            const ts = new URL(specifier.slice(0, -3) + '.ts', context.parentURL);
            if (existsSync(fileURLToPath(ts))) return next(ts.href, context);
          }
          return next(specifier, context);
        },
      });
      const llm = await import(process.env.ENTRY);
      llm.registerBuiltinProviders();
      llm.defaultProviderId({});
      const atStart = [...seen];
      await llm.createClient('ollama', { env: {} });
      const afterOllama = [...seen];
      await llm.createClient('gemini', { env: { GEMINI_API_KEY: 'k' } });
      const afterGemini = [...seen];
      await llm.createClient('openai', { env: { OPENAI_API_KEY: 'k' } });
      const afterOpenAi = [...seen];
      await llm.createClient('anthropic', { env: { ANTHROPIC_API_KEY: 'k' } });
      console.log(JSON.stringify({ atStart, afterOllama, afterGemini, afterOpenAi, afterAnthropic: seen }));
    `;
    const child = spawnSync(process.execPath, ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', script], {
      env: { ...process.env, ENTRY: entry },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({
      atStart: [],
      afterOllama: ['ollama'],
      afterGemini: ['ollama', '@google/genai/web'],
      afterOpenAi: ['ollama', '@google/genai/web', 'openai'],
      afterAnthropic: ['ollama', '@google/genai/web', 'openai', '@anthropic-ai/sdk'],
    });
  });
});
