// Issue 41: a picture read_file returns reaches each provider as that provider's image part, byte for
// byte, in the request after the tool call.
import { afterEach, describe, expect, it } from 'vitest';
import { makePdf, makePng, pngSize } from '../support/media.ts';
import { startScriptedAnthropic } from '../support/scripted-anthropic.ts';
import { startScriptedGemini } from '../support/scripted-gemini.ts';
import { startScriptedOllama } from '../support/scripted-ollama.ts';
import { startScriptedOpenAi } from '../support/scripted-openai.ts';
import type { ScriptModel, ScriptOptions, ScriptedServer } from '../support/script.ts';
import { makeTempRepo, runBeans } from './harness.ts';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const PNG = makePng(40, 30);
// A model whose /api/show lists vision: the scripted default does not, and gets a line instead of pictures.
const VISION: ScriptModel[] = [{ name: 'scripted:latest', capabilities: ['completion', 'tools', 'vision'], contextLength: 32768 }];
const startVisionOllama = (options: ScriptOptions) => startScriptedOllama({ ...options, models: VISION });
const DATA = PNG.toString('base64');

type Body = Record<string, unknown>;
const providers: {
  provider: string;
  start: (options: ScriptOptions) => Promise<ScriptedServer>;
  env: (url: string) => NodeJS.ProcessEnv;
  picture: (body: Body) => unknown;
}[] = [
  {
    provider: 'anthropic',
    start: startScriptedAnthropic,
    env: (url) => ({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: url }),
    picture: (body) =>
      (body.messages as { role: string; content: unknown }[])
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .find((block: { type?: string }) => block.type === 'tool_result')?.content,
  },
  {
    provider: 'openai',
    start: startScriptedOpenAi,
    env: (url) => ({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${url}/v1` }),
    picture: (body) =>
      (body.messages as { role: string; content: unknown }[]).filter((message) => message.role === 'user' && Array.isArray(message.content)).at(-1)?.content,
  },
  {
    provider: 'gemini',
    start: startScriptedGemini,
    env: (url) => ({ GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: url }),
    picture: (body) =>
      (body.contents as { parts: Record<string, unknown>[] }[]).flatMap((content) => content.parts).find((part) => 'inlineData' in part)?.inlineData,
  },
  {
    provider: 'ollama',
    start: startVisionOllama,
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

const userPictures: Record<string, (body: Body) => unknown> = {
  anthropic: (body) =>
    (body.messages as { role: string; content: unknown }[])
      .filter((message) => message.role === 'user')
      .flatMap((message) => (Array.isArray(message.content) ? message.content : [])),
  openai: (body) =>
    (body.messages as { role: string; content: unknown }[])
      .filter((message) => message.role === 'user')
      .flatMap((message) => (Array.isArray(message.content) ? message.content : [])),
  gemini: (body) =>
    (body.contents as { role: string; parts: Record<string, unknown>[] }[]).filter((content) => content.role === 'user').flatMap((content) => content.parts),
  ollama: (body) =>
    (body.messages as { role: string; images?: string[] }[]).filter((message) => message.role === 'user').flatMap((message) => message.images ?? []),
};

describe.each(providers)('@shot.png in a one-shot prompt on $provider', ({ provider, start, env }) => {
  it('attaches that exact picture to the first request, after its label', async () => {
    const server = await start({ turns: [{ text: 'A gradient.' }], apiKey: 'k' });
    servers.push(server);
    const repo = makeTempRepo({ 'shot.png': PNG });
    const run = await runBeans(['-p', 'what is in @shot.png?', '--provider', provider], { cwd: repo.dir, env: { ...repo.env, ...env(server.url) } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('A gradient.');
    const first = server.requests.find((request) => request.kind === 'chat')!.body as Body;
    const sent = userPictures[provider]!(first);
    const json = JSON.stringify(first);
    expect(json).toContain('what is in @shot.png?');
    expect(json).toContain('[image: shot.png 40×30');
    // The last block of the prompt carries the cache breakpoint.
    if (provider === 'anthropic')
      expect(sent).toContainEqual(expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: DATA } }));
    if (provider === 'openai') expect(sent).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${DATA}` } });
    if (provider === 'gemini') expect(sent).toContainEqual({ inlineData: { mimeType: 'image/png', data: DATA } });
    if (provider === 'ollama') expect(sent).toEqual([DATA]);
  });
});

// The long side each client scales to (llm/*-client.ts IMAGE_LIMITS).
const LONG_SIDE: Record<string, number> = { anthropic: 1568, openai: 2048, gemini: 3072, ollama: 2048 };
const sentPng = (provider: string, body: Body): Buffer => {
  const sent = userPictures[provider]!(body) as (Record<string, unknown> | string)[];
  const first = sent.find((part) => typeof part === 'string' || part.type === 'image' || part.type === 'image_url' || 'inlineData' in part)!;
  if (typeof first === 'string') return Buffer.from(first, 'base64');
  if (first.type === 'image') return Buffer.from((first.source as { data: string }).data, 'base64');
  if (first.type === 'image_url') return Buffer.from((first.image_url as { url: string }).url.split(',')[1]!, 'base64');
  return Buffer.from((first.inlineData as { data: string }).data, 'base64');
};

describe.each(providers)('a picture over the limits of $provider', ({ provider, start, env }) => {
  it('arrives scaled within its long side, proportions kept, still a PNG', async () => {
    const server = await start({ turns: [{ text: 'A wide gradient.' }], apiKey: 'k' });
    servers.push(server);
    const repo = makeTempRepo({ 'wide.png': makePng(4000, 1000) });
    const run = await runBeans(['-p', 'what is in @wide.png?', '--provider', provider], { cwd: repo.dir, env: { ...repo.env, ...env(server.url) } });
    expect(run.code, run.stderr).toBe(0);
    const png = sentPng(provider, server.requests.find((request) => request.kind === 'chat')!.body as Body);
    const side = LONG_SIDE[provider]!;
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(pngSize(png)).toEqual({ width: side, height: Math.round(side / 4) });
  });
});

describe('attachments in a stored session', () => {
  it('--continue sends the attached picture again with the history', async () => {
    const server = await startVisionOllama({ turns: [{ text: 'A gradient.' }, { text: 'Still a gradient.' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'shot.png': PNG });
    const env = { ...repo.env, OLLAMA_HOST: server.url };
    expect((await runBeans(['-p', 'what is in @shot.png?'], { cwd: repo.dir, env })).code).toBe(0);
    const again = await runBeans(['-p', 'and the colours?', '--continue'], { cwd: repo.dir, env });
    expect(again.code, again.stderr).toBe(0);
    const second = server.requests.filter((request) => request.kind === 'chat')[1]!.body as Body;
    expect(userPictures.ollama!(second)).toEqual([DATA]);
    expect(JSON.stringify(second)).toContain('and the colours?');
  });
});

describe('a model that cannot see pictures', () => {
  it('gets one line in place of the picture, and the person is told on stderr', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'I cannot see it.' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'shot.png': PNG });
    const run = await runBeans(['-p', 'what is in @shot.png?'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    const first = server.requests.find((request) => request.kind === 'chat')!.body as Body;
    expect(userPictures.ollama!(first)).toEqual([]);
    expect(JSON.stringify(first)).toContain('[a picture was left out: the model scripted:latest cannot see pictures]');
    expect(JSON.stringify(first)).not.toContain(DATA);
    expect(run.stderr).toContain('beans: scripted:latest cannot see pictures, so it got a line saying so in place of each (1 so far).');
  });

  it('"ollama": {"images": true} sends the picture anyway', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'A gradient.' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'shot.png': PNG, '.beans/settings.json': JSON.stringify({ ollama: { images: true } }) });
    const run = await runBeans(['-p', 'what is in @shot.png?', '--trust'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    expect(userPictures.ollama!(server.requests.find((request) => request.kind === 'chat')!.body as Body)).toEqual([DATA]);
    expect(run.stderr).not.toContain('cannot see pictures');
  });
});

describe('"images": false for an OpenAI-compatible model that cannot see', () => {
  it('sends a line in place of the picture, for openai and for a custom endpoint alike, and says so', async () => {
    const server = await startScriptedOpenAi({ turns: [{ text: 'no eyes' }], apiKey: 'k' });
    servers.push(server);
    const repo = makeTempRepo({
      'shot.png': PNG,
      '.beans/settings.json': JSON.stringify({
        openai: { images: false },
        providers: { lmstudio: { type: 'openai', baseUrl: `${server.url}/v1`, apiKeyEnv: 'OPENAI_API_KEY', images: false } },
      }),
    });
    for (const provider of ['openai', 'lmstudio']) {
      const run = await runBeans(['-p', 'what is in @shot.png?', '--provider', provider, '-m', 'text-only', '--trust'], {
        cwd: repo.dir,
        env: { ...repo.env, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${server.url}/v1` },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('beans: text-only cannot see pictures, so it got a line saying so in place of each (1 so far).');
    }
    for (const request of server.requests.filter((r) => r.kind === 'chat')) {
      const sent = JSON.stringify(request.body);
      expect(sent).toContain('[a picture was left out: the model text-only cannot see pictures]');
      expect(sent).not.toContain(DATA);
    }
  });
});

describe('@file attachments that cannot be sent', () => {
  it('a cut-off picture is a clear error and no request is made', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'never' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'cut.png': PNG.subarray(0, PNG.length - 20) });
    const run = await runBeans(['-p', 'look at @cut.png'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('@cut.png: cut.png is a damaged or cut-off PNG picture; nothing was sent.');
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
  });

  it('a file under a read deny rule is refused, as read_file refuses it', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'never' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'secret.png': PNG, '.beans/settings.json': JSON.stringify({ permissions: { deny: ['read_file(secret.png)'] } }) });
    const run = await runBeans(['-p', 'look at @secret.png'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('@secret.png is blocked by a read_file deny rule');
    expect(server.requests.filter((request) => request.kind === 'chat')).toHaveLength(0);
  });

  it('a PDF named with @ reaches the model as its text', async () => {
    const server = await startScriptedOllama({ turns: [{ text: 'done' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'docs/api.pdf': makePdf(['POST /v1/things creates a thing']) });
    const run = await runBeans(['-p', 'summarise @docs/api.pdf'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    const first = JSON.stringify(server.requests.find((request) => request.kind === 'chat')!.body);
    expect(first).toContain('[PDF: docs/api.pdf, 1 page]');
    expect(first).toContain('POST /v1/things creates a thing');
  });
});

describe('a PDF where providers read documents', () => {
  const PDF = makePdf(['POST /v1/things creates a thing']);
  const chatBodies = (server: ScriptedServer) => server.requests.filter((request) => request.kind === 'chat').map((request) => request.body as Body);

  it('goes to Anthropic as a document block inside the tool_result, the file byte for byte', async () => {
    const server = await startScriptedAnthropic({
      turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'docs/api.pdf' } }] }, { text: 'done' }],
      apiKey: 'k',
    });
    servers.push(server);
    const repo = makeTempRepo({ 'docs/api.pdf': PDF });
    const run = await runBeans(['-p', 'read the spec', '--provider', 'anthropic'], {
      cwd: repo.dir,
      env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    const result = providers[0]!.picture(chatBodies(server)[1]!) as Record<string, unknown>[];
    expect(result[0]).toMatchObject({ type: 'text', text: '[PDF: docs/api.pdf, 1 page]' });
    expect(result[1]).toMatchObject({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') },
      title: 'docs/api.pdf',
    });
  });

  it('goes to Gemini as inline application/pdf after the function response', async () => {
    const server = await startScriptedGemini({
      turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'docs/api.pdf' } }] }, { text: 'done' }],
      apiKey: 'k',
    });
    servers.push(server);
    const repo = makeTempRepo({ 'docs/api.pdf': PDF });
    const run = await runBeans(['-p', 'read the spec', '--provider', 'gemini'], {
      cwd: repo.dir,
      env: { ...repo.env, GEMINI_API_KEY: 'k', GOOGLE_GEMINI_BASE_URL: server.url },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(providers[2]!.picture(chatBodies(server)[1]!)).toEqual({ mimeType: 'application/pdf', data: PDF.toString('base64') });
  });

  it('goes to OpenAI-compatible servers as its text, and so does a PDF over the 100 pages Anthropic reads', async () => {
    const openai = await startScriptedOpenAi({ turns: [{ text: 'done' }], apiKey: 'k' });
    const anthropic = await startScriptedAnthropic({ turns: [{ text: 'done' }], apiKey: 'k' });
    servers.push(openai, anthropic);
    const long = makePdf(Array.from({ length: 101 }, (_, index) => `Page text ${index + 1}`));
    const repo = makeTempRepo({ 'docs/api.pdf': PDF, 'docs/long.pdf': long });
    const viaOpenAi = await runBeans(['-p', 'summarise @docs/api.pdf', '--provider', 'openai'], {
      cwd: repo.dir,
      env: { ...repo.env, OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${openai.url}/v1` },
    });
    expect(viaOpenAi.code, viaOpenAi.stderr).toBe(0);
    const sent = JSON.stringify(chatBodies(openai)[0]);
    expect(sent).toContain('POST /v1/things creates a thing');
    expect(sent).not.toContain(PDF.toString('base64').slice(0, 40));
    const viaAnthropic = await runBeans(['-p', 'summarise @docs/long.pdf', '--provider', 'anthropic'], {
      cwd: repo.dir,
      env: { ...repo.env, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: anthropic.url },
    });
    expect(viaAnthropic.code, viaAnthropic.stderr).toBe(0);
    const blocks = userPictures.anthropic!(chatBodies(anthropic)[0]!) as { type: string; text?: string }[];
    expect(blocks.some((block) => block.type === 'document')).toBe(false);
    expect(blocks.find((block) => block.text?.startsWith('[docs/long.pdf: 101 pages, over the 100'))?.text).toContain('Page text 20');
  });
});

describe('read_file of a PDF', () => {
  it('reaches the model as its text when the content stream is compressed', async () => {
    const server = await startScriptedOllama({ turns: [{ toolCalls: [{ name: 'read_file', args: { path: 'docs/api.pdf' } }] }, { text: 'done' }] });
    servers.push(server);
    const repo = makeTempRepo({ 'docs/api.pdf': makePdf(['POST /v1/things creates a thing']) });
    const run = await runBeans(['-p', 'read the spec'], { cwd: repo.dir, env: { ...repo.env, OLLAMA_HOST: server.url } });
    expect(run.code, run.stderr).toBe(0);
    const second = JSON.stringify(server.requests.filter((request) => request.kind === 'chat')[1]!.body);
    expect(second).toContain('POST /v1/things creates a thing');
  });
});
