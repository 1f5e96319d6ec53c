// Issue 41: a picture read_file returns reaches each provider as that provider's image part, byte for
// byte, in the request after the tool call.
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '../support/media.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedGemini } from '../support/scripted-gemini.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptOptions, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const PNG = makePng(40, 30);
const DATA = PNG.toString('base64');

type Body = Record<string, unknown>;
const providers: { provider: string; start: (options: ScriptOptions) => Promise<ScriptedServer>; env: (url: string) => NodeJS.ProcessEnv; picture: (body: Body) => unknown }[] = [
  {
    provider: 'anthropic',
    start: startScriptedAnthropic,
    env: (url) => ({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url }),
    picture: (body) => (body.messages as { role: string; content: unknown }[]).flatMap((message) => (Array.isArray(message.content) ? message.content : [])).find((block: { type?: string }) => block.type === 'tool_result')?.content,
  },
  {
    provider: 'openai',
    start: startScriptedOpenAi,
    env: (url) => ({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` }),
    picture: (body) => (body.messages as { role: string; content: unknown }[]).filter((message) => message.role === 'user' && Array.isArray(message.content)).at(-1)?.content,
  },
  {
    provider: 'gemini',
    start: startScriptedGemini,
    env: (url) => ({ GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: url }),
    picture: (body) => (body.contents as { parts: Record<string, unknown>[] }[]).flatMap((content) => content.parts).find((part) => 'inlineData' in part)?.inlineData,
  },
  {
    provider: 'ollama',
    start: startScriptedOllama,
    env: (url) => ({ OLLAMA_HOST: url }),
    picture: (body) => (body.messages as { role: string; images?: string[] }[]).find((message) => message.images)?.images,
  },
];

describe.each(providers)('read_file of a picture on $provider', ({ provider, start, env, picture }) => {
  it('puts that exact picture into the next request as the provider takes images', async () => {
    const server = await start({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'shot.png' } }] }, { text: 'A gradient.' }], apiKey: 'k' });
    servers.push(server);
    const repo = makeTempRepo({ 'shot.png': PNG });
    const run = await runBeans(['-p', 'what is in shot.png?', '--provider', provider], { cwd: repo.dir, env: { ...repo.env, ...env(server.url) } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('A gradient.');
    const second = server.requests.filter((request) => request.kind === 'chat')[1]!.body as Body;
    const sent = JSON.stringify(picture(second));
    expect(sent).toContain(DATA);
    if (provider === 'anthropic') expect(picture(second)).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: DATA } });
    if (provider === 'openai') expect(sent).toContain(`data:image/png;base64,${DATA}`);
    if (provider === 'gemini') expect(picture(second)).toEqual({ mimeType: 'image/png', data: DATA });
    if (provider === 'ollama') expect(picture(second)).toEqual([DATA]);
  });
});

describe('read_file of a PDF', () => {
  it("reaches the model as its text when the content stream is compressed", async () => {
    const server = await startScriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'docs/api.pdf' } }] }, { text: 'done' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'docs/api.pdf': makePdf(['POST /v1/things creates a thing']) });
    const run = await runBeans(['-p', 'read the spec'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    const second = JSON.stringify(server.requests.filter((request) => request.kind === 'chat')[1]!.body);
    expect(second).toContain('POST /v1/things creates a thing');
  });
});
