import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { toGeminiContents } from '../../src/llm/gemini-client.js';
import { toOllamaMessages } from '../../src/llm/ollama-client.js';
import { createProviderClient, resolveProvider } from '../../src/llm/providers.js';
import { tempHome } from './temp-home.js';

let t: ReturnType<typeof tempHome>;
afterEach(() => t?.cleanup());

describe("provider settings read from the providers' definitions", () => {
  it('accepts models.<provider> and each endpoint key, set by its environment variable', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { models: { openai: 'gpt-5', anthropic: 'claude-haiku-5-5' }, anthropic: { baseUrl: 'http://proxy:9/' } });
    const env = { ...t.env, OPENAI_BASE_URL: 'http://local:1234/v1' };
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env, trusted: true });
    expect(loaded.values.models).toMatchObject({ openai: 'gpt-5', anthropic: 'claude-haiku-5-5' });
    expect(loaded.values.openai.baseUrl).toBe('http://local:1234/v1');
    expect(loaded.entries.find((e) => e.key === 'openai.baseUrl')?.source).toBe('env');
    expect(loaded.values.anthropic.baseUrl).toBe('http://proxy:9/');
    expect(loaded.warnings).toEqual([]);
  });

  it('accepts a custom OpenAI-compatible endpoint, and rejects a malformed one naming the file and the key', async () => {
    t = tempHome();
    t.write(t.workspaceFile, {
      providers: { lmstudio: { type: 'openai', baseUrl: 'http://localhost:1234/v1', apiKeyEnv: 'LMSTUDIO_KEY', models: ['qwen2.5-coder-14b'] } },
    });
    const loaded = await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true });
    expect(loaded.values.providers.lmstudio).toEqual({
      type: 'openai',
      baseUrl: 'http://localhost:1234/v1',
      apiKeyEnv: 'LMSTUDIO_KEY',
      models: ['qwen2.5-coder-14b'],
    });

    t.write(t.workspaceFile, { providers: { lmstudio: { type: 'anthropic', baseUrl: 'http://localhost:1234/v1' } } });
    const error = await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(t.workspaceFile);
    expect((error as ConfigError).message).toContain('providers.lmstudio.type');
  });

  it('chooses the configured provider and says why; an unknown one is bad usage from a flag and a settings error naming the file', async () => {
    t = tempHome();
    t.write(t.workspaceFile, { provider: 'nosuch' });
    const fromFile = await loadConfig({ workspaceRoot: t.workspace, env: t.env, trusted: true });
    let error = (() => {
      try {
        resolveProvider(fromFile, t.env);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(3);
    expect((error as ConfigError).message).toContain(`the settings file ${t.workspaceFile}`);

    const fromFlag = await loadConfig({ workspaceRoot: t.workspace, env: t.env, flags: { provider: 'nosuch' } });
    error = (() => {
      try {
        resolveProvider(fromFlag, t.env);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toMatch(/Unknown provider "nosuch".*gemini, anthropic, openai, ollama/);

    t.write(t.workspaceFile, {});
    const none = await loadConfig({ workspaceRoot: t.workspace, env: t.env });
    expect(resolveProvider(none, { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' })).toEqual({ providerId: 'anthropic', reason: 'ANTHROPIC_API_KEY is set' });
    expect(resolveProvider(none, {}).providerId).toBe('ollama');
    const flagged = await loadConfig({ workspaceRoot: t.workspace, env: t.env, flags: { provider: 'openai' } });
    expect(resolveProvider(flagged, {})).toEqual({ providerId: 'openai', reason: 'set by --provider' });
  });

  it('creates a client with models.<provider> and the endpoint setting', async () => {
    const client = await createProviderClient('anthropic', { values: { models: { anthropic: 'claude-haiku-5-5' } } }, { ANTHROPIC_API_KEY: 'k' });
    expect(client.provider).toBe('anthropic');
    expect(await client.resolveModel()).toEqual({ model: 'claude-haiku-5-5' });
  });
});

describe('content parts and metadata for Gemini and Ollama', () => {
  const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };

  it('Gemini: images as inlineData; the thought signature from metadata, or from `signature` in old session files', () => {
    const contents = toGeminiContents([
      { role: 'user', content: [{ type: 'text', text: 'see' }, image] },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'read_file', arguments: {}, metadata: { gemini: { thoughtSignature: 'new' } } },
          { id: 'b', name: 'read_file', arguments: {}, signature: 'old' } as never,
        ],
      },
      { role: 'tool', toolCallId: 'a', toolName: 'read_file', content: [{ type: 'text', text: 'png' }, image] },
    ]);
    expect(contents[0].parts).toEqual([{ text: 'see' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }]);
    expect(contents[1].parts?.map((p) => p.thoughtSignature)).toEqual(['new', 'old']);
    expect(contents[2].parts).toEqual([
      { functionResponse: { id: 'a', name: 'read_file', response: { output: 'png' } } },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
    ]);
  });

  it("Ollama: images as the message's base64 images", () => {
    const messages = toOllamaMessages(undefined, [
      { role: 'user', content: [{ type: 'text', text: 'see' }, image] },
      { role: 'tool', toolCallId: 'a', toolName: 'read_file', content: [{ type: 'text', text: 'png' }, image] },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'see', images: ['iVBORw0KGgo='] },
      { role: 'tool', content: 'png', images: ['iVBORw0KGgo='], tool_name: 'read_file' },
    ]);
  });
});
