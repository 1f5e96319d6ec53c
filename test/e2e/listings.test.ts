import { describe, expect, it } from 'vitest';
import type { ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans, scriptedGemini, scriptedOllama, type TempRepo } from './harness.ts';

let repo: TempRepo;
let server: ScriptedServer | undefined;

describe('listings', () => {
  it('models list shows the installed Ollama models with their capabilities', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({
      turns: [{ text: 'ok' }],
      models: [
        { name: 'qwen3:8b', capabilities: ['completion', 'tools'], contextLength: 40960 },
        { name: 'gemma3:4b', capabilities: ['completion'], contextLength: 8192 },
      ],
    });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    const json = await runBeans(['models', 'list', '--json'], { cwd: repo.dir, env });
    expect(json.code).toBe(0);
    const listing = JSON.parse(json.stdout);
    expect(listing.provider).toBe('ollama');
    expect(listing.models).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'qwen3:8b', supportsTools: true }),
        expect.objectContaining({ name: 'gemma3:4b', supportsTools: false }),
      ]),
    );
    const text = await runBeans(['models', 'list'], { cwd: repo.dir, env });
    expect(text.stdout).toMatch(/gemma3:4b\s+.*no tools/);
  });

  it('picks an installed tool-capable Ollama model when none is configured, and says which', async () => {
    repo = makeTempRepo();
    server = await scriptedOllama({
      turns: [{ text: 'hello' }],
      models: [
        { name: 'gemma3:4b', capabilities: ['completion'] },
        { name: 'qwen3:8b', capabilities: ['completion', 'tools'] },
      ],
    });
    const run = await runBeans(['-p', 'hi'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('qwen3:8b');
    expect((server.requests.find((request) => request.kind === 'chat')!.body as { model: string }).model).toBe('qwen3:8b');
  });

  it('models list shows the Gemini models', async () => {
    repo = makeTempRepo();
    server = await scriptedGemini({ turns: [{ text: 'ok' }] });
    const run = await runBeans(['models', 'list', '--json'], { cwd: repo.dir, env: { ...repo.env, GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: server.url } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).models.map((model: { name: string }) => model.name)).toEqual(expect.arrayContaining(['gemini-2.5-flash', 'gemini-2.5-pro']));
  });

  it('sessions list says when there are none', async () => {
    repo = makeTempRepo();
    const run = await runBeans(['sessions', 'list'], { cwd: repo.dir, env: repo.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No sessions');
    const json = await runBeans(['sessions', 'list', '--json'], { cwd: repo.dir, env: repo.env });
    expect(JSON.parse(json.stdout)).toEqual({ sessions: [] });
  });
});
